/// RFC 5849 §3.6 percent-encoding and the matching decoding (PROTOCOL §3.3).
///
/// Only the RFC 3986 unreserved set (`A-Z a-z 0-9 - . _ ~`) stays literal; every other UTF-8 byte
/// becomes `%XX` with upper-case hex. Foundation's encoders differ in what they keep, so this is
/// written out: a signature depends on every byte.
public enum OAuth1Encoding {
    public static func encode(_ text: some StringProtocol) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                output.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                output += "%"
                output.unicodeScalars.append(hexDigit(byte >> 4))
                output.unicodeScalars.append(hexDigit(byte & 0x0F))
            }
        }
        return output
    }

    /// Decodes `%XX` escapes; with `plusIsSpace` (form-style query strings) `+` means a space.
    /// Nil when an escape is malformed or the bytes are not UTF-8.
    public static func decode(_ text: some StringProtocol, plusIsSpace: Bool = false) -> String? {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = HexDigit.value(bytes[index + 1]), let low = HexDigit.value(bytes[index + 2]) else { return nil }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func hexDigit(_ value: UInt8) -> UnicodeScalar {
        UnicodeScalar(value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10)
    }

}
