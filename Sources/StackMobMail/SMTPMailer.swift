import Foundation
import Logging
import NIOCore
import StackMobCore

/// Sends mail through an SMTP relay (RFC 5321): EHLO, STARTTLS when configured, AUTH PLAIN or
/// LOGIN when credentials are set, MAIL FROM / RCPT TO / DATA, QUIT. One connection per
/// message: the server sends little mail (forgotPassword), so no pool.
///
/// Logs name the relay, the recipient and the reply codes; never the password or the body
/// (which holds a temporary password).
public struct SMTPMailer: Mailer {
    let settings: SMTPSettings
    let host: String
    let from: String
    let logger: Logger
    /// The name given in EHLO.
    let clientName: String

    /// Nil when `settings.host` is nil (no SMTP: the outbox is used).
    public init?(mail: MailSettings, logger: Logger, clientName: String = "stackmob-server") {
        guard let host = mail.smtp.host else { return nil }
        self.settings = mail.smtp
        self.host = host
        self.from = mail.from
        self.logger = logger
        self.clientName = clientName
    }

    public func send(_ message: MailMessage) async throws {
        do {
            try await deliver(message)
            logger.info("Mail sent over SMTP", metadata: ["sm.mail.to": "\(message.to)", "sm.smtp.host": "\(host)"])
        } catch {
            logger.error(
                "Mail delivery over SMTP failed",
                metadata: ["sm.mail.to": "\(message.to)", "sm.smtp.host": "\(host)", "sm.smtp.error": "\(error.message)"])
            throw error
        }
    }

    func deliver(_ message: MailMessage) async throws(SMTPError) {
        guard MailAddress.isPlain(message.to) else { throw .invalidMessage("recipient is not a plain address") }
        let data = try SMTPMessageFormatter.data(
            message, from: from, date: Date(), messageID: "\(UUID().uuidString.lowercased())@\(clientName)")
        let connection = try await SMTPConnection.connect(host: host, port: settings.port, timeout: .seconds(Int64(settings.timeoutSeconds)))
        do {
            try await converse(connection, message: message, data: data)
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
    }

    private func converse(_ connection: SMTPConnection, message: MailMessage, data: String) async throws(SMTPError) {
        let greeting = try await connection.reply("greeting")
        guard greeting.code == 220 else { throw .unexpectedReply(step: "greeting", code: greeting.code, text: greeting.text) }
        var extensions = try await connection.command("EHLO \(clientName)", step: "EHLO", expect: [250]).lines
        if settings.startTLS {
            guard extensions.contains(where: { $0.uppercased().hasPrefix("STARTTLS") }) else { throw .startTLSNotOffered }
            _ = try await connection.command("STARTTLS", step: "STARTTLS", expect: [220])
            try await connection.startTLS(serverHostname: host, caFile: settings.caFile)
            // RFC 3207: forget what was learnt before TLS and ask again.
            extensions = try await connection.command("EHLO \(clientName)", step: "EHLO after STARTTLS", expect: [250]).lines
        }
        if let username = settings.username, let password = settings.password {
            try await authenticate(connection, username: username, password: password, extensions: extensions)
        }
        _ = try await connection.command("MAIL FROM:<\(from)>", step: "MAIL FROM", expect: [250])
        _ = try await connection.command("RCPT TO:<\(message.to)>", step: "RCPT TO", expect: [250, 251])
        _ = try await connection.command("DATA", step: "DATA", expect: [354])
        try await connection.write(data, step: "message")
        let accepted = try await connection.reply("end of message")
        guard accepted.code == 250 else { throw .unexpectedReply(step: "end of message", code: accepted.code, text: accepted.text) }
        // The message is accepted: a failed QUIT changes nothing.
        _ = try? await connection.command("QUIT", step: "QUIT", expect: [221])
    }

    /// AUTH PLAIN unless the server offers only LOGIN. Commands with credentials are never
    /// logged or put into errors.
    private func authenticate(_ connection: SMTPConnection, username: String, password: String, extensions: [String]) async throws(SMTPError) {
        let mechanisms = extensions.first { $0.uppercased().hasPrefix("AUTH") }.map {
            Set($0.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" }).dropFirst().map(String.init))
        } ?? []
        let usePlain = mechanisms.contains("PLAIN") || !mechanisms.contains("LOGIN")
        if usePlain {
            let token = Data("\0\(username)\0\(password)".utf8).base64EncodedString()
            try await write(connection, "AUTH PLAIN \(token)", expectAuthenticated: true)
        } else {
            try await write(connection, "AUTH LOGIN", expectAuthenticated: false)
            try await write(connection, Data(username.utf8).base64EncodedString(), expectAuthenticated: false)
            try await write(connection, Data(password.utf8).base64EncodedString(), expectAuthenticated: true)
        }
    }

    private func write(_ connection: SMTPConnection, _ line: String, expectAuthenticated: Bool) async throws(SMTPError) {
        try await connection.write(line + "\r\n", step: "AUTH")
        let reply = try await connection.reply("AUTH")
        guard reply.code == (expectAuthenticated ? 235 : 334) else { throw .authenticationFailed(code: reply.code) }
    }
}


/// What the mailer accepts as an address in `RCPT TO`: no spaces, brackets or line breaks.
enum MailAddress {
    static func isPlain(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        return address.unicodeScalars.allSatisfy { $0.value > 32 && $0.value != 127 && $0 != "<" && $0 != ">" }
    }
}
