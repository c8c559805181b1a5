/// The bytes a JSON string cannot hold as they are: a quote, a backslash and the control
/// characters below 0x20 (RFC 8259 §7). The writer escapes them; the parser stops at them.
enum JSONEscapable {
    static func contains(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether one of a word's eight bytes is one of them. `(x - n * ones) & ~x & highs` is
    /// non-zero exactly when some byte of `x` is below `n` (for n ≤ 0x80), and a byte equal to `c`
    /// is a zero byte of `x ^ c * ones` ("Bit Twiddling Hacks", S. E. Anderson). Which bits it
    /// sets may be off: callers find the byte itself with `contains(_:)`.
    static func contains(inWord word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasByte(below limit: UInt64, in x: UInt64) -> Bool { (x &- limit &* ones) & ~x & highs != 0 }
        return hasByte(below: 0x20, in: word)
            || hasByte(below: 1, in: word ^ (UInt64(UInt8(ascii: "\"")) &* ones))
            || hasByte(below: 1, in: word ^ (UInt64(UInt8(ascii: "\\")) &* ones))
    }
}
