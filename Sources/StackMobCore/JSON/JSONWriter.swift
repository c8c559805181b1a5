/// Serialises `JSONValue` the way StackMob clients expect (PROTOCOL §1.4, D16): object keys in
/// lexicographic order, null-valued object members omitted.
public enum JSONWriter {
    /// - Parameter omittingNulls: drop null-valued object members, as every response must. Only
    ///   clients (tests) keep them: a request's `null` means "clear this field".
    public static func bytes(_ value: JSONValue, omittingNulls: Bool = true) -> [UInt8] {
        withBytes(value, omittingNulls: omittingNulls) { Array($0) }
    }

    /// The JSON text's bytes, lent to `body` where they were written: a caller that copies them
    /// into a buffer of its own (a response body) makes one copy, not two.
    public static func withBytes<Result>(
        _ value: JSONValue, omittingNulls: Bool = true, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        // Never nil: no text is longer than `Int.max` bytes.
        try withBytes(value, omittingNulls: omittingNulls, limit: .max, body)!
    }

    /// `withBytes` within `limit` bytes: nil, having written no more than that, when the text
    /// would be longer. Bounds the memory of an answer whose size the request decides (an
    /// expansion repeats each related object in every object that names it).
    ///
    /// - Parameter grant: asked for each growth of the text's memory, with the bytes it adds;
    ///   false stops the text there as `limit` does (`JSONOutputBuffer`), so that what a text
    ///   takes is counted as it grows (`AnswerMemory`).
    public static func withBytes<Result>(
        _ value: JSONValue, omittingNulls: Bool = true, limit: Int, grant: ((Int) -> Bool)? = nil,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result? {
        var output = JSONOutputBuffer(capacity: 512, limit: limit, grant: grant)
        var repeated = JSONRepeatedObjects()
        write(value, into: &output, omittingNulls: omittingNulls, repeated: &repeated, isMember: false)
        guard !output.exceeded else { return nil }
        return try output.withUnsafeBytes(body)
    }

    public static func string(_ value: JSONValue, omittingNulls: Bool = true) -> String {
        String(decoding: bytes(value, omittingNulls: omittingNulls), as: UTF8.self)
    }

    /// The JSON array of `strings`, the same text as `string(.array(strings.map(JSONValue.string)))`
    /// with no `JSONValue` made of each string nor array of them: the ids a statement loads.
    public static func arrayText(of strings: [String]) -> String {
        var output = JSONOutputBuffer(capacity: 2 + strings.count * 8)
        output.append(UInt8(ascii: "["))
        for index in strings.indices {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            writeString(strings[index], into: &output)
        }
        output.append(UInt8(ascii: "]"))
        return output.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// - Parameter isMember: the value is an object's member or inside one (an array's
    ///   elements are where the array is): an object there may recur, and is written once
    ///   (`JSONRepeatedObjects`). A page's own objects are each written once anyway.
    private static func write(
        _ value: JSONValue, into output: inout JSONOutputBuffer, omittingNulls: Bool, repeated: inout JSONRepeatedObjects, isMember: Bool
    ) {
        switch value {
        case .null:
            output.append("null")
        case .bool(let bool):
            output.append(bool ? "true" : "false")
        case .integer(let integer):
            withDecimalDigits(of: integer) { output.append($0) }
        case .float(let double):
            writeDouble(double, into: &output)
        case .string(let string):
            writeString(string, into: &output)
        case .array(let array):
            output.append(UInt8(ascii: "["))
            for (position, element) in array.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output, omittingNulls: omittingNulls, repeated: &repeated, isMember: isMember)
                if output.exceeded { return }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            guard isMember, JSONRepeatedObjects.canIdentify, object.count >= JSONRepeatedObjects.smallestLookedUp else {
                writeObject(object, into: &output, omittingNulls: omittingNulls, repeated: &repeated)
                return
            }
            let storage = JSONRepeatedObjects.storage(of: object)
            if let written = repeated.written(storage) {
                output.appendCopy(of: written)
                return
            }
            let start = output.count
            writeObject(object, into: &output, omittingNulls: omittingNulls, repeated: &repeated)
            repeated.record(storage, writtenAt: start..<output.count)
        }
    }

    /// The members in key order, which is the order a `JSONObject` keeps them in; nulls left out.
    private static func writeObject(
        _ object: JSONObject, into output: inout JSONOutputBuffer, omittingNulls: Bool, repeated: inout JSONRepeatedObjects
    ) {
        output.append(UInt8(ascii: "{"))
        var first = true
        // By index, each member read where it is: `for member in` copied every member, a retain and
        // a release of its key and its value (docs/benchmarks.md).
        for index in object.members.indices {
            if omittingNulls, case .null = object.members[index].value { continue }
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            writeString(object.members[index].key, into: &output)
            output.append(UInt8(ascii: ":"))
            write(object.members[index].value, into: &output, omittingNulls: omittingNulls, repeated: &repeated, isMember: true)
            if output.exceeded { return }
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Decimal digits written straight into the output: `String(integer)` allocated a string
    /// for every number of every response (timestamps are in every object).
    public static func writeInteger(_ integer: Int64, into output: inout [UInt8]) {
        withDecimalDigits(of: integer) { output.append(contentsOf: $0) }
    }

    private static func withDecimalDigits(of integer: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var magnitude = integer.magnitude
        // A sign and UInt64.max's 20 digits; they come out last first, two at a time: half the
        // divisions for the 13 digits of every timestamp (docs/benchmarks.md).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { digits in
            var start = digits.count
            Self.digitPairs.withUTF8Buffer { pairs in
                while magnitude >= 100 {
                    let pair = Int(magnitude % 100) &* 2
                    magnitude /= 100
                    start -= 2
                    digits[start] = pairs[pair]
                    digits[start + 1] = pairs[pair + 1]
                }
                if magnitude >= 10 {
                    start -= 2
                    digits[start] = pairs[Int(magnitude) &* 2]
                    digits[start + 1] = pairs[Int(magnitude) &* 2 + 1]
                } else {
                    start -= 1
                    digits[start] = UInt8(ascii: "0") + UInt8(magnitude)
                }
            }
            if integer < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            body(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// "00", "01" … "99": the two digits of every number below 100.
    private static var digitPairs: StaticString { "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899" }

    private static func writeDouble(_ double: Double, into output: inout JSONOutputBuffer) {
        guard double.isFinite else {
            // JSON has no NaN or infinity; they cannot come from parsed input.
            output.append("null")
            return
        }
        // Swift's shortest round-trip form is valid JSON: `2.0`, `0.1`, `1e-07`, `1e+20`. Mostly
        // a small string, so no allocation (interpolating it into an array made two).
        double.description.utf8.span.withUnsafeBufferPointer { output.append($0) }
    }

    /// The bytes are read through the string's `Span`, which borrows them where they are: the
    /// closure of `withContiguousStorageIfAvailable` retained and released every string written,
    /// small ones included (docs/benchmarks.md, "Figures behind design choices").
    private static func writeString(_ string: String, into output: inout JSONOutputBuffer) {
        output.append(UInt8(ascii: "\""))
        string.utf8.span.withUnsafeBufferPointer { writeEscaped($0, into: &output) }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout JSONOutputBuffer) {
        // Nearly every string needs no escape, and is copied whole.
        guard containsEscapable(bytes) else {
            output.append(bytes)
            return
        }
        // Runs of bytes that need no escape are copied whole.
        var runStart = 0
        for position in bytes.indices where JSONEscapable.contains(bytes[position]) {
            output.append(UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
            writeEscape(bytes[position], into: &output)
            runStart = position + 1
        }
        output.append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }

    /// Whether any byte needs an escape, looked for eight bytes at a time: byte by byte, the search
    /// cost several instructions a byte of every key and string value (docs/benchmarks.md, "Figures
    /// behind design choices").
    private static func containsEscapable(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        guard raw.count >= 8 else { return !raw.isEmpty && JSONEscapable.contains(inWord: shortWord(raw)) }
        var offset = 0
        while offset < raw.count - 8 {
            if JSONEscapable.contains(inWord: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
            offset += 8
        }
        // The last eight bytes, overlapping the word before when the length is not a multiple of 8.
        return JSONEscapable.contains(inWord: raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self))
    }

    /// The bytes of a string of 1 to 7 bytes in one word, read without going past its end: two
    /// overlapping halves of four bytes, or its first, middle and last byte and spaces (which need
    /// no escape). Most keys and many values are that short; byte by byte, their search cost dozens
    /// of instructions each (docs/benchmarks.md, "Figures behind design choices").
    private static func shortWord(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        let count = raw.count
        if count >= 4 {
            let first = UInt64(raw.loadUnaligned(as: UInt32.self))
            let last = UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            return first | last << 32
        }
        let spaces: UInt64 = 0x2020_2020_2020_2020
        return spaces << 24 | UInt64(raw[count - 1]) << 16 | UInt64(raw[count / 2]) << 8 | UInt64(raw[0])
    }

    private static func writeEscape(_ byte: UInt8, into output: inout JSONOutputBuffer) {
        switch byte {
        case UInt8(ascii: "\""): output.append("\\\"")
        case UInt8(ascii: "\\"): output.append("\\\\")
        case 0x0A: output.append("\\n")
        case 0x0D: output.append("\\r")
        case 0x09: output.append("\\t")
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            output.append("\\u00")
            hexDigits.withUTF8Buffer { hex in
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
    }
}
