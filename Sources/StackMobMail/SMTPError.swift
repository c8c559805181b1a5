/// Why an SMTP delivery failed. Texts name the step and the server's reply code, never the
/// password or the message body.
public enum SMTPError: Error, Sendable, Equatable {
    case connectFailed(host: String, port: Int, reason: String)
    case timedOut(step: String)
    case connectionClosed(step: String)
    /// The server answered `code` where the step needed another code.
    case unexpectedReply(step: String, code: Int, text: String)
    case startTLSNotOffered
    case tlsFailed(reason: String)
    case authenticationFailed(code: Int)
    /// A recipient, sender or subject that would break the SMTP command or headers.
    case invalidMessage(String)

    public var message: String {
        switch self {
        case .connectFailed(let host, let port, let reason): "SMTP: cannot connect to \(host):\(port): \(reason)"
        case .timedOut(let step): "SMTP: no reply in time (\(step))"
        case .connectionClosed(let step): "SMTP: the server closed the connection (\(step))"
        case .unexpectedReply(let step, let code, let text): "SMTP: \(step) answered \(code) \(text)"
        case .startTLSNotOffered: "SMTP: the server does not offer STARTTLS (set mail.smtp.starttls to false to send in clear)"
        case .tlsFailed(let reason): "SMTP: TLS failed: \(reason)"
        case .authenticationFailed(let code): "SMTP: authentication refused (\(code)): check mail.smtp.username and password"
        case .invalidMessage(let reason): "SMTP: invalid message: \(reason)"
        }
    }
}
