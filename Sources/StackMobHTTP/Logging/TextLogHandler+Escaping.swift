extension TextLogHandler {
    /// `text` with its control characters written out, so that what a client sent (a login, a
    /// path) can neither end a text log line and forge the next one nor drive the terminal that
    /// shows it: `\n`, `\r` and `\t`, and the other C0 controls, DEL and the C1 controls as
    /// `\u{XX}` (upper-case hex, Swift's escape, as `String.debugDescription` writes them; `\u{1B}`
    /// for ESC). A backslash is left alone: the escapes are for the eye, and JSON lines
    /// (`logging.format: json`) are the format to parse.
    ///
    /// Every request's line goes through here: a string without any is returned as it is, after
    /// one pass over its bytes, and not copied.
    static func escapingControls(_ text: String) -> String {
        guard text.utf8.span.withUnsafeBufferPointer(mayHoldControls) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: escaped += "\\n"
            case 0x0D: escaped += "\\r"
            case 0x09: escaped += "\\t"
            case 0..<0x20, 0x7F...0x9F: escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `escapingControls(string)`'s bytes appended, copied as one block when there is nothing to
    /// escape (the request line's path and metadata).
    static func appendEscaped(_ string: String, to bytes: inout [UInt8]) {
        let appended = string.utf8.span.withUnsafeBufferPointer { buffer in
            guard !mayHoldControls(buffer) else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        guard !appended else { return }
        escapingControls(string).utf8.span.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
    }

    /// Whether UTF-8 `bytes` may hold a control character: a byte below 0x20, DEL, or 0xC2, the
    /// lead byte of U+0080 to U+00BF, among which the C1 controls (the others, such as `©`, then
    /// take the slower path and come out unchanged). Written without an early exit, so that the
    /// compiler can test many bytes at once.
    private static func mayHoldControls(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var found: UInt8 = 0
        for byte in bytes {
            found |= (byte < 0x20 ? 1 : 0) | (byte == 0x7F ? 1 : 0) | (byte == 0xC2 ? 1 : 0)
        }
        return found != 0
    }
}
