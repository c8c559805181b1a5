import Foundation
import Logging
import NIOSSL
import StackMobCore
import StackMobTestSupport
import Synchronization
import Testing

@testable import StackMobMail

@Suite("SMTP mailer against a stub relay", .tags(.timing))
struct SMTPMailerTests {
    static func settings(port: Int, startTLS: Bool = false, credentials: Bool = true, caFile: String? = nil) -> MailSettings {
        var mail = MailSettings()
        mail.from = "no-reply@app.example"
        mail.smtp.host = "localhost"
        mail.smtp.port = port
        mail.smtp.startTLS = startTLS
        mail.smtp.caFile = caFile
        mail.smtp.timeoutSeconds = 5
        if credentials {
            mail.smtp.username = "mailer"
            mail.smtp.password = "s3cret-Pass"
        }
        return mail
    }

    static let message = MailMessage(
        to: "alice@example.com", subject: "Your temporary password",
        body: "Hello\n.starts with a dot\n..two dots\nTemporary password: tmp-Secret-123\n.")

    @Test("EHLO, AUTH PLAIN, MAIL FROM, RCPT TO, DATA with dot-stuffing, QUIT: exact conversation")
    func plainConversation() async throws {
        let server = try await SMTPStubServer()
        let (logger, store) = CapturingLogHandler.logger()
        let mailer = try #require(SMTPMailer(mail: Self.settings(port: server.port), logger: logger))
        try await mailer.send(Self.message)
        await server.stop()
        let plain = Data("\0mailer\0s3cret-Pass".utf8).base64EncodedString()
        #expect(
            server.lines == [
                "EHLO stackmob-server", "AUTH PLAIN \(plain)", "MAIL FROM:<no-reply@app.example>", "RCPT TO:<alice@example.com>", "DATA", "QUIT",
            ])
        let delivered = try #require(server.messages.first)
        let parts = delivered.components(separatedBy: "\r\n\r\n")
        let headers = parts[0].components(separatedBy: "\r\n")
        #expect(headers.contains("From: no-reply@app.example"))
        #expect(headers.contains("To: alice@example.com"))
        #expect(headers.contains("Subject: Your temporary password"))
        #expect(headers.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(headers.contains { $0.hasPrefix("Date: ") && $0.hasSuffix(" +0000") })
        // The stub keeps the lines as sent: dot-stuffed.
        #expect(parts.dropFirst().joined(separator: "\r\n\r\n") == "Hello\r\n..starts with a dot\r\n...two dots\r\nTemporary password: tmp-Secret-123\r\n..")
        for line in store.all {
            #expect(!line.fullText.contains("s3cret-Pass") && !line.fullText.contains(plain) && !line.fullText.contains("tmp-Secret-123"))
        }
        #expect(store.all.contains { $0.message == "Mail sent over SMTP" && $0.metadata["sm.mail.to"] == "alice@example.com" })
    }

    @Test("AUTH LOGIN when the relay offers only LOGIN; no AUTH without credentials")
    func loginMechanism() async throws {
        var options = SMTPStubServer.Options()
        options.extensions = ["AUTH LOGIN"]
        let server = try await SMTPStubServer(options)
        try await #require(SMTPMailer(mail: Self.settings(port: server.port), logger: Logger(label: "t"))).send(Self.message)
        #expect(
            server.lines.prefix(4) == [
                "EHLO stackmob-server", "AUTH LOGIN", Data("mailer".utf8).base64EncodedString(), Data("s3cret-Pass".utf8).base64EncodedString(),
            ])
        #expect(server.messages.count == 1)
        let anonymous = try await SMTPStubServer()
        try await #require(SMTPMailer(mail: Self.settings(port: anonymous.port, credentials: false), logger: Logger(label: "t"))).send(Self.message)
        #expect(!anonymous.lines.contains { $0.hasPrefix("AUTH") })
        await server.stop()
        await anonymous.stop()
    }

    @Test("refusals become clear errors: bad credentials, refused recipient, no STARTTLS, nobody listening")
    func failures() async throws {
        let server = try await SMTPStubServer()
        var wrong = Self.settings(port: server.port)
        wrong.smtp.password = "not-it-Secret"
        await #expect(throws: SMTPError.authenticationFailed(code: 535)) {
            try await SMTPMailer(mail: wrong, logger: Logger(label: "t"))!.deliver(Self.message)
        }
        var options = SMTPStubServer.Options()
        options.rcptCode = 550
        let refusing = try await SMTPStubServer(options)
        await #expect(throws: SMTPError.unexpectedReply(step: "RCPT TO", code: 550, text: "recipient")) {
            try await SMTPMailer(mail: Self.settings(port: refusing.port), logger: Logger(label: "t"))!.deliver(Self.message)
        }
        await #expect(throws: SMTPError.startTLSNotOffered) {
            try await SMTPMailer(mail: Self.settings(port: server.port, startTLS: true), logger: Logger(label: "t"))!.deliver(Self.message)
        }
        await server.stop()
        await refusing.stop()
        // A refused port no other test's server can be given meanwhile (a stopped server's port
        // could be, and the mailer then waited for a greeting from an HTTP server).
        try await RefusedPort.with { port in
            do throws(SMTPError) {
                try await SMTPMailer(mail: Self.settings(port: port), logger: Logger(label: "t"))!.deliver(Self.message)
                Issue.record("delivery to a closed port succeeded")
            } catch {
                guard case .connectFailed = error else { Issue.record("unexpected \(error)"); return }
            }
        }
        #expect(SMTPMailer(mail: MailSettings(), logger: Logger(label: "t")) == nil)
    }

    @Test("STARTTLS upgrades the connection; the client trusts the test CA via ca_file")
    func startTLS() async throws {
        let directory = try #require(Bundle.module.resourceURL?.appendingPathComponent("Certificates"))
        let certificate = directory.appendingPathComponent("localhost.cert.pem").path
        let key = directory.appendingPathComponent("localhost.key.pem").path
        var options = SMTPStubServer.Options()
        options.tls = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))))
        let server = try await SMTPStubServer(options)
        try await #require(SMTPMailer(mail: Self.settings(port: server.port, startTLS: true, caFile: certificate), logger: Logger(label: "t")))
            .send(Self.message)
        #expect(server.lines.prefix(3) == ["EHLO stackmob-server", "STARTTLS", "EHLO stackmob-server"])
        #expect(server.lines.contains { $0.hasPrefix("AUTH PLAIN ") })
        #expect(server.messages.count == 1)
        // Without the CA the certificate is refused and nothing is sent.
        let untrusted = try await SMTPStubServer(options)
        do {
            try await SMTPMailer(mail: Self.settings(port: untrusted.port, startTLS: true), logger: Logger(label: "t"))!.deliver(Self.message)
            Issue.record("an untrusted certificate was accepted")
        } catch {
            // The handshake failure surfaces on the TLS step or on the first write after it.
            switch error {
            case .tlsFailed, .connectionClosed(step: "EHLO after STARTTLS"): break
            default: Issue.record("unexpected \(error)")
            }
        }
        #expect(!untrusted.lines.contains { $0.hasPrefix("AUTH") })
        await server.stop()
        await untrusted.stop()
    }
}
