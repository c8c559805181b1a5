#if canImport(Glibc)
    import Glibc
#endif

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
            output.append(contentsOf: String(integer).utf8)
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
            var first = true
            // The members sorted with their values: no second lookup of each key.
            for (key, member) in object.sorted(by: { utf8Order($0.key, $1.key) }) {
                if omittingNulls && member.isNull { continue }
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member, into: &output, omittingNulls: omittingNulls)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Byte-wise order, which is what "lexicographic" means to the clients' comparisons. Compared
    /// with `memcmp` over the strings' UTF-8 storage: every object of every response is sorted.
    static func utf8Order(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0 {
                    let order = memcmp(left.baseAddress!, right.baseAddress!, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
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
