/// Strict base64 (RFC 4648 §4: the standard alphabet, padded, no line breaks), decoded in one
/// pass over bytes: the data of a binary field (PROTOCOL §7), up to `limits.max_body_bytes`.
enum Base64 {
    /// Each byte's 6-bit value, or `invalid`.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()
    private static let invalid: UInt8 = 0xFF
    private static let padding = UInt8(ascii: "=")

    /// The decoded bytes; nil when `text` is not strict base64 (a length that is not a multiple
    /// of 4, a character outside the alphabet, padding anywhere but at the end).
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        guard !text.isEmpty else { return [] }
        let padded = text[text.count - 1] == padding ? (text[text.count - 2] == padding ? 2 : 1) : 0
        let quads = text.count / 4
        let length = quads * 3 - padded
        // Every quad but a padded last one decodes to three bytes, with no branch: a character
        // outside the alphabet maps to `invalid`, whose high bit survives the or of the whole
        // text and is looked at once, at the end.
        let whole = padded == 0 ? quads : quads - 1
        var valid = true
        let decoded = values.withUnsafeBufferPointer { values in
            [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
                var seen: UInt8 = 0
                for quad in 0..<whole {
                    let offset = quad * 4, out = quad * 3
                    let a = values[Int(text[offset])], b = values[Int(text[offset + 1])]
                    let c = values[Int(text[offset + 2])], d = values[Int(text[offset + 3])]
                    seen |= a | b | c | d
                    let triple = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[out] = UInt8(truncatingIfNeeded: triple >> 16)
                    output[out + 1] = UInt8(truncatingIfNeeded: triple >> 8)
                    output[out + 2] = UInt8(truncatingIfNeeded: triple)
                }
                if padded > 0 {
                    let offset = whole * 4, out = whole * 3
                    let a = values[Int(text[offset])], b = values[Int(text[offset + 1])]
                    let c = padded == 2 ? 0 : values[Int(text[offset + 2])]
                    seen |= a | b | c
                    let triple = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                    output[out] = UInt8(truncatingIfNeeded: triple >> 16)
                    if padded == 1 { output[out + 1] = UInt8(truncatingIfNeeded: triple >> 8) }
                }
                valid = seen < 64
                initialized = valid ? length : 0
            }
        }
        return valid ? decoded : nil
    }

    /// `text` without the ASCII spaces, tabs and line breaks around it.
    static func trimmingWhitespace(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var start = 0
        var end = text.count
        while start < end, isWhitespace(text[start]) { start += 1 }
        while end > start, isWhitespace(text[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: text[start..<end])
    }
}
