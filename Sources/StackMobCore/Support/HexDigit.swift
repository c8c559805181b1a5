/// Hexadecimal digits: as they appear in percent-encoding (`%2C`, `%2c`), and as digests are
/// written (lowercase, two per byte).
public enum HexDigit {
    /// The value of one hex digit, either case; nil for any other byte.
    public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `bytes` as lowercase hex. Written directly rather than with `String(format: "%02x")` per
    /// byte: a session token is hashed and written so on every signed request, and Foundation's
    /// formatter took longer than the hash.
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        let digits: StaticString = "0123456789abcdef"
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.underestimatedCount * 2)
        digits.withUTF8Buffer { digits in
            for byte in bytes {
                utf8.append(digits[Int(byte >> 4)])
                utf8.append(digits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
