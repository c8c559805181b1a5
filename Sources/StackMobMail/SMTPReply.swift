/// One (possibly multi-line) SMTP reply: `250-first`, `250-second`, `250 last` (RFC 5321 §4.2).
public struct SMTPReply: Sendable, Equatable {
    public var code: Int
    public var lines: [String]

    public var text: String { lines.joined(separator: " ") }
}

/// Splits received bytes into replies. Pure, so it is tested without a socket.
public struct SMTPReplyParser: Sendable {
    private var pending: [UInt8] = []
    private var lines: [String] = []

    public init() {}

    /// Feeds bytes; returns the replies they complete. Throws on a line that is not a reply.
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(SMTPError) -> [SMTPReply] {
        pending.append(contentsOf: bytes)
        var replies: [SMTPReply] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(pending[..<newline])
            pending.removeSubrange(...newline)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            let text = String(decoding: line, as: UTF8.self)
            guard text.utf8.count >= 3, let code = Int(text.prefix(3)), (200...599).contains(code) else {
                throw .unexpectedReply(step: "reply", code: 0, text: String(text.prefix(80)))
            }
            let separator = text.dropFirst(3).first
            lines.append(String(text.dropFirst(4)))
            if separator != "-" {
                replies.append(SMTPReply(code: code, lines: lines))
                lines = []
            }
        }
        // A line longer than any sane reply: refuse rather than buffer without bound.
        if pending.count > 64 * 1024 { throw .unexpectedReply(step: "reply", code: 0, text: "reply line too long") }
        return replies
    }
}
