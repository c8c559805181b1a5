/// Serialises `JSONValue` the way StackMob clients expect (PROTOCOL §1.4, D16): object keys in
/// lexicographic order, null-valued object members omitted.
public enum JSONWriter {
    /// - Parameter omittingNulls: drop null-valued object members, as every response must. Only
    ///   clients (tests) keep them: a request's `null` means "clear this field".
    public static func bytes(_ value: JSONValue, omittingNulls: Bool = true) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output, omittingNulls: omittingNulls)
        return output
    }

    public static func string(_ value: JSONValue, omittingNulls: Bool = true) -> String {
        String(decoding: bytes(value, omittingNulls: omittingNulls), as: UTF8.self)
    }

    private static func write(_ value: JSONValue, into output: inout [UInt8], omittingNulls: Bool) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let bool):
            output.append(contentsOf: (bool ? "true" : "false").utf8)
        case .integer(let integer):
            writeInteger(integer, into: &output)
        case .float(let double):
            writeDouble(double, into: &output)
        case .string(let string):
            writeString(string, into: &output)
        case .array(let array):
            output.append(UInt8(ascii: "["))
            for (position, element) in array.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output, omittingNulls: omittingNulls)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (position, member) in sortedMembers(of: object, omittingNulls: omittingNulls).enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output, omittingNulls: omittingNulls)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// The members to write, in key order, with their values: no second lookup of each key.
    ///
    /// Every object of every response passes here, most with a handful of short keys, and the
    /// standard library's stable sort (a merge sort's set-up around an insertion sort, through a
    /// generic closure) cost half of the time spent writing an expanded page (issue 19). Keys
    /// are unique, so an unstable sort gives the same order; nulls left out are not sorted.
    private static func sortedMembers(of object: [String: JSONValue], omittingNulls: Bool) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(object.count)
        for member in object where !(omittingNulls && member.value.isNull) {
            members.append(member)
        }
        guard members.count <= 16 else {
            members.sort { utf8Order($0.key, $1.key) }
            return members
        }
        members.withUnsafeMutableBufferPointer { members in
            // Insertion sort: each member moves back past the larger keys before it.
            for next in members.indices.dropFirst() {
                var position = next
                while position > 0 && utf8Order(members[position].key, members[position - 1].key) {
                    members.swapAt(position, position - 1)
                    position -= 1
                }
            }
        }
        return members
    }

    /// Byte-wise order, which is what "lexicographic" means to the clients' comparisons.
    ///
    /// The bytes are compared where the strings keep them (a native string's buffer, a small
    /// string's copy on the stack). Walking the two UTF-8 views with iterators cost 150
    /// instructions a comparison, and an expanded page of 20 makes 1,600 of them (issue 19).
    private static func utf8Order(_ lhs: String, _ rhs: String) -> Bool {
        let inPlace = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                for position in 0..<min(left.count, right.count) where left[position] != right[position] {
                    return left[position] < right[position]
                }
                return left.count < right.count
            }
        }
        if let inPlace = inPlace ?? nil { return inPlace }
        // A string bridged from elsewhere, whose bytes are not in one piece.
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            guard let leftByte = left.next() else { return right.next() != nil }
            guard let rightByte = right.next() else { return false }
            if leftByte != rightByte { return leftByte < rightByte }
        }
    }

    /// Decimal digits written straight into the output: `String(integer)` allocated a string
    /// for every number of every response (timestamps are in every object).
    public static func writeInteger(_ integer: Int64, into output: inout [UInt8]) {
        if integer < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = integer.magnitude
        // UInt64.max has 20 digits; they come out last first.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    private static func writeDouble(_ double: Double, into output: inout [UInt8]) {
        guard double.isFinite else {
            // JSON has no NaN or infinity; they cannot come from parsed input.
            output.append(contentsOf: "null".utf8)
            return
        }
        // Swift's shortest round-trip form is valid JSON: `2.0`, `0.1`, `1e-07`, `1e+20`.
        output.append(contentsOf: "\(double)".utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ string: String, into output: inout [UInt8]) {
        var string = string
        output.append(UInt8(ascii: "\""))
        string.withUTF8 { bytes in
            // Runs of bytes that need no escape (nearly every string) are copied whole.
            var runStart = 0
            for (position, byte) in bytes.enumerated() where needsEscape(byte) {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                writeEscape(byte, into: &output)
                runStart = position + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func writeEscape(_ byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
        case 0x0A: output.append(contentsOf: "\\n".utf8)
        case 0x0D: output.append(contentsOf: "\\r".utf8)
        case 0x09: output.append(contentsOf: "\\t".utf8)
        default:
            output.append(contentsOf: "\\u00".utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}
