import StackMobCore
import Testing

@Suite("JSONObject")
struct JSONObjectTests {
    /// Keys that share their first eight bytes, end inside them, differ in case or run past ASCII.
    static let keys = ["createddate", "createdby", "created", "createddat", "createddate_2", "abcdefgh", "abcdefg",
                       "abcdefgh\u{0}", "abcdefg\u{0}", "abcdefghé", "abcdefghZ", "\u{0}", "lastmoddate", "a", "B", "é", "e"]

    static func byteOrder(_ keys: [String]) -> [String] {
        keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    @Test("members are kept in the byte order of their keys, however they were added")
    func order() {
        for permutation in [Self.keys, Self.keys.reversed(), Self.keys.shuffled()] {
            var object = JSONObject()
            for (position, key) in permutation.enumerated() { object[key] = .integer(Int64(position)) }
            #expect(Array(object.keys) == Self.byteOrder(Self.keys))
            for (position, key) in permutation.enumerated() { #expect(object[key] == .integer(Int64(position))) }
            #expect(object.count == Self.keys.count)
        }
    }

    @Test("keys appended in their byte order make the object setting them makes")
    func appendInKeyOrder() {
        var appended = JSONObject()
        var set = JSONObject()
        for (position, key) in Self.byteOrder(Self.keys).enumerated() {
            appended.append(.integer(Int64(position)), forKeyAfterAll: JSONObject.PreparedKey(key))
            set[key] = .integer(Int64(position))
        }
        #expect(appended == set)
        #expect(appended.keys.elementsEqual(Self.byteOrder(Self.keys)))
        #expect(appended["createddate_2"] == set["createddate_2"] && appended["abcdefgh\u{0}"] != nil)
    }

    @Test("setting a key replaces its value; nil removes it; a missing key reads nil")
    func updateAndRemove() {
        var object: JSONObject = ["b": 1, "a": 2, "c": 3]
        #expect(object.updateValue(10, forKey: "b") == 1)
        object["a"] = nil
        #expect(object.removeValue(forKey: "zz") == nil)
        #expect(object == ["b": 10, "c": 3])
        #expect(object["a"] == nil && object["B"] == nil && object[""] == nil)
        object[""] = "empty"
        #expect(Array(object.keys) == ["", "b", "c"])
        object.removeAll()
        #expect(object.isEmpty && object["b"] == nil)
    }

    @Test("of a key given twice, the last value is kept, as a parsed text's duplicate names are")
    func lastValueWins() throws {
        let object = JSONObject(lastValuesOf: [("b", 1), ("a", 2), ("b", 3), ("a", 4), ("c", 5)])
        #expect(Array(object.keys) == ["a", "b", "c"])
        #expect(object == ["a": 4, "b": 3, "c": 5])
        #expect(try JSONParser.parse(#"{"k": 1, "j": 2, "k": 3}"#) == ["j": 2, "k": 3])
    }

    @Test("a large object is built from unordered members, each key once")
    func large() throws {
        let count = 20_000
        let text = "{" + (0..<count).map { #""k\#(($0 * 7919) % count)":\#($0)"# }.joined(separator: ",") + #","k5":"last"}"#
        guard case .object(let object) = try JSONParser.parse(text) else {
            Issue.record("not an object")
            return
        }
        #expect(object.count == count)
        #expect(Array(object.keys) == Self.byteOrder((0..<count).map { "k\($0)" }))
        #expect(object["k5"] == "last")
        #expect(object["k\((1 * 7919) % count)"] == 1)
    }

    @Test("keys are bytes: two spellings of é are two keys")
    func keysAreBytes() {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        var object: JSONObject = [composed: 1]
        object[decomposed] = 2
        #expect(object.count == 2)
        #expect(object[composed] == 1 && object[decomposed] == 2)
        #expect(JSONWriter.string(.object(object)) == #"{"é":2,"é":1}"#)
    }

    @Test("equal objects are equal and hash alike, whatever order they were built in")
    func equality() {
        var forward = JSONObject()
        var backward = JSONObject()
        for key in Self.keys { forward[key] = .string(key) }
        for key in Self.keys.reversed() { backward[key] = .string(key) }
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        backward["a"] = "changed"
        #expect(forward != backward)
    }

    @Test("the dictionary operations the server uses")
    func dictionaryOperations() {
        let object: JSONObject = ["n": 1, "s": "x", "z": nil]
        #expect(object.mapValues { $0.isNull ? 0 : $0 } == ["n": 1, "s": "x", "z": 0])
        #expect(object.compactMapValues(\.integerValue) == ["n": 1])
        #expect(object.filter { !$0.value.isNull } == ["n": 1, "s": "x"])
        #expect(object.merging(["n": 2, "a": true]) { old, new in old == 1 ? new : old } == ["a": true, "n": 2, "s": "x", "z": nil])
        #expect(JSONObject(["q": 1, "p": 2]) == ["p": 2, "q": 1])
        #expect(object.map(\.key) == ["n", "s", "z"])
        #expect(object.description == #"["n": integer(1), "s": string("x"), "z": null]"#)
        #expect(JSONObject().description == "[:]")
    }
}
