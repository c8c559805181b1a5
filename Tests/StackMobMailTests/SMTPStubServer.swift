import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A scripted SMTP server on 127.0.0.1:0 that records every line the client sends. Answers like
/// a relay: 220 greeting, EHLO with the configured extensions, STARTTLS (when given a TLS
/// context), AUTH PLAIN/LOGIN against fixed credentials, MAIL/RCPT/DATA, QUIT.
final class SMTPStubServer: Sendable {
    struct Options: Sendable {
        var extensions = ["AUTH PLAIN LOGIN", "8BITMIME"]
        var tls: NIOSSLContext?
        var username = "mailer"
        var password = "s3cret-Pass"
        var rcptCode = 250
    }

    /// What the client sent: command lines, and the DATA payloads (without the final dot line).
    final class Recorder: Sendable {
        let lines = Mutex<[String]>([])
        let messages = Mutex<[String]>([])
    }
    private let recorder: Recorder
    private let channel: any Channel

    var lines: [String] { recorder.lines.withLock { $0 } }
    var messages: [String] { recorder.messages.withLock { $0 } }

    var port: Int { channel.localAddress!.port! }

    init(_ options: Options = Options()) async throws {
        let recorder = Recorder()
        self.recorder = recorder
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Session(options: options, recorder: recorder))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func stop() async {
        try? await channel.close()
    }

    private final class Session: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let options: Options
        let recorder: Recorder
        var buffer: [UInt8] = []
        var inData = false
        var data: [String] = []
        var authStep = 0
        var loginUser = ""
        var tlsActive = false

        init(options: Options, recorder: Recorder) {
            self.options = options
            self.recorder = recorder
        }

        func channelActive(context: ChannelHandlerContext) {
            send(context, "220 stub.example ESMTP ready")
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            buffer += unwrapInboundIn(data).readableBytesView
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                handle(context, String(decoding: line, as: UTF8.self))
            }
        }

        private func send(_ context: ChannelHandlerContext, _ text: String) {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text + "\r\n")), promise: nil)
        }

        private func handle(_ context: ChannelHandlerContext, _ line: String) {
            if inData {
                if line == "." {
                    inData = false
                    let payload = data.joined(separator: "\r\n")
                    recorder.messages.withLock { $0.append(payload) }
                    data = []
                    send(context, "250 2.0.0 queued as 1")
                } else {
                    data.append(line)
                }
                return
            }
            recorder.lines.withLock { $0.append(line) }
            if authStep == 1 {
                loginUser = String(decoding: Data(base64Encoded: line) ?? Data(), as: UTF8.self)
                authStep = 2
                send(context, "334 UGFzc3dvcmQ6")
                return
            }
            if authStep == 2 {
                authStep = 0
                let password = String(decoding: Data(base64Encoded: line) ?? Data(), as: UTF8.self)
                send(context, loginUser == options.username && password == options.password ? "235 2.7.0 ok" : "535 5.7.8 bad credentials")
                return
            }
            let upper = line.uppercased()
            if upper.hasPrefix("EHLO") {
                let all = options.extensions + (options.tls != nil && !tlsActive ? ["STARTTLS"] : [])
                var reply = ["250-stub.example greets you"]
                for (index, ext) in all.enumerated() { reply.append((index == all.count - 1 ? "250 " : "250-") + ext) }
                if all.isEmpty { reply = ["250 stub.example"] }
                send(context, reply.joined(separator: "\r\n"))
            } else if upper == "STARTTLS", let tls = options.tls {
                send(context, "220 2.0.0 go ahead")
                tlsActive = true
                try? context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .first)
            } else if upper.hasPrefix("AUTH PLAIN ") {
                let decoded = String(decoding: Data(base64Encoded: String(line.dropFirst(11))) ?? Data(), as: UTF8.self)
                send(context, decoded == "\0\(options.username)\0\(options.password)" ? "235 2.7.0 ok" : "535 5.7.8 bad credentials")
            } else if upper == "AUTH LOGIN" {
                authStep = 1
                send(context, "334 VXNlcm5hbWU6")
            } else if upper.hasPrefix("MAIL FROM:") {
                send(context, "250 2.1.0 ok")
            } else if upper.hasPrefix("RCPT TO:") {
                send(context, "\(options.rcptCode) recipient")
            } else if upper == "DATA" {
                inData = true
                send(context, "354 end with .")
            } else if upper == "QUIT" {
                send(context, "221 bye")
                context.close(promise: nil)
            } else {
                send(context, "502 5.5.2 unknown")
            }
        }
    }
}
