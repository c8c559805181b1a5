import StackMobCore
import Testing

@Suite("JSONParser")
struct JSONParserTests {
    @Test("integers and non-integers are told apart", arguments: [
        ("18", JSONValue.integer(18)),
        ("-0", .integer(0)),
        ("18.0", .float(18.0)),
        ("18.5", .float(18.5)),
        ("1e3", .float(1000)),
        ("7.582267603498963E-4", .float(7.582267603498963E-4)),
        ("9223372036854775807", .integer(Int64.max)),
        ("9223372036854775808", .float(9223372036854775808.0)),
    ])
    func numbers(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test("strings with escapes and surrogate pairs")
    func strings() throws {
        #expect(try JSONParser.parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        #expect(try JSONParser.parse("\"naïve ünïcode\"") == .string("naïve ünïcode"))
    }

    @Test("objects and arrays")
    func containers() throws {
        let value = try JSONParser.parse(#" { "a" : [1, true, null, {"b": "c"}], "d": {} } "#)
        #expect(value == ["a": [1, true, nil, ["b": "c"]], "d": [:]])
    }

    @Test("malformed input is an error with a position, never a crash", arguments: [
        "", "{", "[1,", "{\"a\" 1}", "{'a': 1}", "tru", "01", "1.", "-", "\"abc", "\"\\x\"", "\"\\ud800\"", "[1] x",
        "{\"a\":1,}", "\"\u{01}\"", "1e", "NaN",
    ])
    func malformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test("nesting is bounded")
    func depth() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser.parse(allowed) }
    }

    @Test("comment lines only when asked for")
    func comments() throws {
        let text = "// a comment\n{\n  # another\n  \"a\": 1 // trailing\n}"
        #expect(try JSONParser.parse(text, options: .init(allowsComments: true)) == ["a": 1])
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        // Before an escape and after one: the string is read byte by byte from its start then.
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0x5C, 0x6E, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0x5C, 0x6E, 0xFF, 0x22]) }
    }

    @Test("strings whose escape or control character comes after plain text", arguments: [
        (#"["plain", "then \n escaped", "é\u00e9"]"#, JSONValue.array(["plain", "then \n escaped", "éé"])),
        (#""tail\\""#, .string("tail\\")),
        (#""""#, .string("")),
    ])
    func stringsAfterPlainText(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test("errors inside strings keep their positions", arguments: [
        ([0x22, 0x61, 0x62, 0x63, 0x64, 0x01, 0x22], "control character in string at line 1, column 6"),
        ([0x22, 0x61, 0x62, 0x63], "unterminated string at line 1, column 5"),
        ([0x22, 0x61, 0xFF, 0x22], "string is not valid UTF-8 at line 1, column 5"),
        ([0x22, 0x61, 0x5C, 0x6E, 0x01, 0x22], "control character in string at line 1, column 5"),
    ] as [([UInt8], String)])
    func stringErrorPositions(bytes: [UInt8], message: String) {
        // The column of the offending byte, whichever way the string was being read.
        let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        #expect(error?.description == message)
    }

    @Test("a quote, an escape, a control character or a non-ASCII byte is found at every position of a word")
    func specialBytesAtEveryPosition() throws {
        // The plain runs between them are read eight bytes at a time: each kind of byte, at each
        // offset in and around a word, must stop the run or mark the string as non-ASCII there.
        let plain = Array("abcdefghijklmnopqrstuvwx".utf8)
        for length in 0...plain.count {
            for position in 0...length {
                let before = Array(plain[..<position]), after = Array(plain[position..<length])
                func text(_ middle: [UInt8]) -> [UInt8] { [0x22] + before + middle + after + [0x22] }
                let expected = { (middle: String) in
                    JSONValue.string(String(decoding: before, as: UTF8.self) + middle + String(decoding: after, as: UTF8.self))
                }
                let at = "at \(length), \(position)"
                #expect(try JSONParser.parse(text(Array(#"\""#.utf8))) == expected("\""), "\(at)")
                #expect(try JSONParser.parse(text(Array(#"\/"#.utf8))) == expected("/"), "\(at)")
                #expect(try JSONParser.parse(text(Array("é".utf8))) == expected("é"), "\(at)")
                #expect(try JSONParser.parse(text(Array(#"\n"#.utf8) + Array("é".utf8))) == expected("\né"), "\(at)")
                let invalid = #expect(throws: JSONParseError.self) { try JSONParser.parse(text([0xFF])) }
                #expect(invalid?.reason == "string is not valid UTF-8", "\(at)")
                for controlByte: UInt8 in [0x01, 0x1F] {
                    let control = #expect(throws: JSONParseError.self) { try JSONParser.parse(text([controlByte])) }
                    #expect(control?.description == "control character in string at line 1, column \(position + 2)", "\(at)")
                }
                #expect(try JSONParser.parse(text([0x20, 0x7F])) == expected(" \u{7F}"), "\(at)")
                let escape = #expect(throws: JSONParseError.self) { try JSONParser.parse(text(Array(#"\x"#.utf8))) }
                #expect(escape?.description == "invalid escape sequence at line 1, column \(position + 4)", "\(at)")
                let unterminated = #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22] + before + after) }
                #expect(unterminated?.description == "unterminated string at line 1, column \(length + 2)", "\(at)")
                // An unescaped quote ends the string; the text after it is refused where it starts.
                let early = #expect(throws: JSONParseError.self) { try JSONParser.parse(text([0x22, 0x20])) }
                #expect(early?.description == "unexpected text after the JSON value at line 1, column \(position + 4)", "\(at)")
            }
        }
    }
}

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test("keys sorted, nulls omitted in responses, kept in requests")
    func objects() {
        let value: JSONValue = ["b": 1, "a": ["z": nil, "y": [nil, 2.5]], "c": nil]
        #expect(JSONWriter.string(value) == #"{"a":{"y":[null,2.5]},"b":1}"#)
        #expect(JSONWriter.string(value, omittingNulls: false) == #"{"a":{"y":[null,2.5],"z":null},"b":1,"c":null}"#)
    }

    @Test("keys in byte order of their UTF-8: prefixes first, uppercase before lowercase, é after z")
    func keyOrder() {
        let value: JSONValue = ["é": 1, "z": 2, "Z": 3, "ab": 4, "a": 5, "": 6, "a_b": 7, "😀": 8]
        #expect(JSONWriter.string(value) == #"{"":6,"Z":3,"a":5,"a_b":7,"ab":4,"z":2,"é":1,"😀":8}"#)
    }

    @Test("strings are escaped and round-trip")
    func strings() throws {
        let original = JSONValue.string("quote \" backslash \\ newline \n tab \t bell \u{07} é 😀")
        let text = JSONWriter.string(original)
        #expect(text == #""quote \" backslash \\ newline \n tab \t bell \u0007 é 😀""#)
        #expect(try JSONParser.parse(text) == original)
        // Escapes at either end, back to back, and none at all.
        #expect(JSONWriter.string(.string("\"\u{01}")) == #""\"\u0001""#)
        #expect(JSONWriter.string(.string("\r")) == #""\r""#)
        #expect(JSONWriter.string(.string("plain")) == #""plain""#)
        #expect(JSONWriter.string(.string("")) == #""""#)
    }

    @Test("objects of every size: keys in byte order, whichever way they are sorted", arguments: [0, 1, 2, 15, 16, 17, 40])
    func keyOrderAtEverySize(count: Int) {
        // Keys that share prefixes, differ in case, and run past ASCII, inserted in no order.
        let keys = (0..<count).map { ["f\($0 * 7919 % 97)", "F\($0)", "f\($0)_", "é\($0)"][$0 % 4] }
        var object: JSONObject = [:]
        for (position, key) in keys.enumerated() { object[key] = .integer(Int64(position)) }
        object["null_member"] = .null
        let expected = object.keys.filter { $0 != "null_member" }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let text = JSONWriter.string(.object(object))
        let written = expected.map { "\"\($0)\":\(object[$0]!.integerValue!)" }.joined(separator: ",")
        #expect(text == "{" + written + "}")
    }

    @Test("keys that share their first eight bytes, or end inside them, are still in byte order")
    func keyOrderPastEightBytes() {
        // The writer compares keys' first eight bytes as one number, then the rest.
        let keys = ["createddate", "createdby", "created", "createddat", "createddate_2", "abcdefgh", "abcdefg",
                    "abcdefgh\u{0}", "abcdefg\u{0}", "abcdefghé", "abcdefghZ", "\u{0}", "lastmoddate", "a"]
        var object: JSONObject = [:]
        for (position, key) in keys.enumerated() { object[key] = .integer(Int64(position)) }
        let expected = keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let written = expected.map { "\(JSONWriter.string(.string($0))):\(object[$0]!.integerValue!)" }.joined(separator: ",")
        #expect(JSONWriter.string(.object(object)) == "{" + written + "}")
        // The same keys again, longer: 28 members.
        for key in keys { object[key + "_more_than_eight"] = .bool(true) }
        let all = object.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let text = JSONWriter.string(.object(object))
        let order = all.map { text.range(of: JSONWriter.string(.string($0)) + ":")!.lowerBound }
        #expect(order.count == 28 && order == order.sorted())
    }

    @Test("long output grows its buffer without losing bytes")
    func longOutput() throws {
        let value = JSONValue.array((0..<2_000).map { .object(["n": .integer(Int64($0)), "s": .string(String(repeating: "x", count: $0 % 50))]) })
        let text = JSONWriter.string(value)
        #expect(text.utf8.count > 50_000)
        #expect(try JSONParser.parse(text) == value)
    }

    @Test("an object that recurs, sharing its storage, is written as it first was", arguments: [true, false])
    func recurringObjects(omittingNulls: Bool) throws {
        // Every call makes new objects: written from these, nothing recurs.
        func owner() -> JSONObject { ["person_id": "p1", "name": "one", "where": ["lat": 1.5, "lon": -2.0], "gone": .null] }
        func tag(_ n: Int) -> JSONObject {
            ["tag_id": .string("t\(n)"), "owner": .object(owner()), "label": .string(String(repeating: "é", count: n % 20)), "none": .null]
        }
        // More distinct tags than `JSONRepeatedObjects` has slots, each met in several articles,
        // twice in some, after others that took its slot.
        let sharedOwner = owner()
        let sharedTags = (0..<600).map { n in
            var tag = tag(n)
            tag["owner"] = .object(sharedOwner)
            return tag
        }
        func articles(tag: (Int) -> JSONObject, owner: () -> JSONObject) -> JSONValue {
            .array((0..<300).map { n in
                let picked = [n, n * 7 % 600, (n * 13 + 5) % 600, n]
                return .object([
                    "article_id": .string("a\(n)"), "author": .object(owner()), "tags": .array(picked.map { .object(tag($0)) }),
                    "empty": .object([:]), "nested": .array([.array([.object(tag(n % 3))])]),
                ])
            })
        }
        let shared = articles(tag: { sharedTags[$0] }, owner: { sharedOwner })
        let fresh = articles(tag: tag, owner: owner)
        #expect(shared == fresh)
        let text = JSONWriter.string(shared, omittingNulls: omittingNulls)
        #expect(text == JSONWriter.string(fresh, omittingNulls: omittingNulls))
        #expect(text.utf8.count > 200_000)
        // And the text is the value: parsed back and written again, byte for byte.
        #expect(JSONWriter.string(try JSONParser.parse(text), omittingNulls: omittingNulls) == text)
    }

    @Test("an array of strings written directly reads as the same array", arguments: [[], ["a"], ["p01", "t\"q", "é\n\\", ""]] as [[String]])
    func arrayOfStrings(strings: [String]) throws {
        let text = JSONWriter.arrayText(of: strings)
        #expect(text == JSONWriter.string(.array(strings.map(JSONValue.string))))
        #expect(try JSONParser.parse(text) == .array(strings.map(JSONValue.string)))
    }

    @Test("every byte that needs an escape is found, at every position of strings of every length")
    func escapesAtEveryPosition() throws {
        // The writer looks for them eight bytes at a time; bytes just past each limit must pass.
        for length in 1...24 {
            for position in 0..<length {
                for special: UInt8 in [0x00, 0x1F, 0x22, 0x5C] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = special
                    let text = JSONWriter.string(.string(String(decoding: bytes, as: UTF8.self)))
                    #expect(try JSONParser.parse(text) == .string(String(decoding: bytes, as: UTF8.self)))
                    #expect(text.utf8.count > length + 2, "length \(length), position \(position), byte \(special)")
                }
                // Neighbours of the specials, and bytes past ASCII, are written as they are.
                for plain: UInt8 in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = plain
                    #expect(JSONWriter.string(.string(String(decoding: bytes, as: UTF8.self))).utf8.count == length + 2)
                }
            }
        }
        #expect(JSONWriter.string(.string("ééééé\u{1}")) == #""ééééé\u0001""#)
    }

    @Test("numbers keep their kind", arguments: [
        (JSONValue.integer(-42), "-42"), (.integer(0), "0"), (.integer(9), "9"), (.integer(10), "10"), (.integer(-1), "-1"),
        (.integer(1_700_000_000_123), "1700000000123"),
        (.integer(99), "99"), (.integer(100), "100"), (.integer(-100), "-100"), (.integer(101), "101"), (.integer(1_000_000_007), "1000000007"), (.integer(.max), "9223372036854775807"), (.integer(.min), "-9223372036854775808"),
        (.float(2), "2.0"), (.float(0.1), "0.1"), (.float(1e-7), "1e-07"),
    ])
    func numbers(value: JSONValue, text: String) throws {
        #expect(JSONWriter.string(value) == text)
        #expect(try JSONParser.parse(text) == value)
    }

    @Test("integers of every length, and floats, are written as Swift's own decimal text")
    func decimalText() {
        // Each digit count, and the numbers either side of each power of ten, both signs.
        var integers: [Int64] = Array(-1_000...1_000) + [.max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 1...18 {
            power *= 10
            integers += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        for integer in integers {
            #expect(JSONWriter.string(.integer(integer)) == String(integer))
            var line: [UInt8] = []
            JSONWriter.writeInteger(integer, into: &line)
            #expect(line == Array(String(integer).utf8))
        }
        for double in [0.0, -0.0, 1.5, -2.25, 19.99, 1e300, -1e-300, 123_456_789.125, .pi, 1.0 / 3.0, 5e-324, .greatestFiniteMagnitude] {
            #expect(JSONWriter.string(.float(double)) == "\(double)")
        }
    }
}
