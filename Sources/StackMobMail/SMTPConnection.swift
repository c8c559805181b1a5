import NIOCore
import NIOPosix
import NIOSSL

/// One SMTP client connection: send a command line, await the reply, each step under a
/// timeout. Used by one task at a time (the mailer's `send`).
final class SMTPConnection {
    private let channel: any Channel
    private var replies: AsyncThrowingStream<SMTPReply, any Error>.AsyncIterator
    private let timeout: TimeAmount

    private init(channel: any Channel, replies: AsyncThrowingStream<SMTPReply, any Error>, timeout: TimeAmount) {
        self.channel = channel
        self.replies = replies.makeAsyncIterator()
        self.timeout = timeout
    }

    static func connect(host: String, port: Int, timeout: TimeAmount) async throws(SMTPError) -> SMTPConnection {
        let (stream, continuation) = AsyncThrowingStream<SMTPReply, any Error>.makeStream()
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(SMTPReplyHandler(continuation: continuation))
                    }
                }
                .connect(host: host, port: port).get()
            return SMTPConnection(channel: channel, replies: stream, timeout: timeout)
        } catch {
            throw .connectFailed(host: host, port: port, reason: "\(error)")
        }
    }

    /// Waits for the next reply; `step` names it in errors.
    func reply(_ step: String) async throws(SMTPError) -> SMTPReply {
        // Closing the channel ends the stream, which wakes the wait below.
        let channel = self.channel
        let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer { timer.cancel() }
        let deadline = NIODeadline.now() + timeout
        do {
            guard let reply = try await replies.next() else {
                throw NIODeadline.now() >= deadline ? SMTPError.timedOut(step: step) : SMTPError.connectionClosed(step: step)
            }
            return reply
        } catch let error as SMTPError {
            throw error
        } catch let error as NIOSSLError {
            throw .tlsFailed(reason: "\(error)")
        } catch {
            throw NIODeadline.now() >= deadline ? .timedOut(step: step) : .connectionClosed(step: step)
        }
    }

    /// Sends `line` plus CRLF and returns the reply, which must have one of `expected` codes.
    /// `step` (not the line, which may hold credentials) names it in errors.
    func command(_ line: String, step: String, expect expected: Set<Int>) async throws(SMTPError) -> SMTPReply {
        try await write(line + "\r\n", step: step)
        let reply = try await reply(step)
        guard expected.contains(reply.code) else { throw .unexpectedReply(step: step, code: reply.code, text: String(reply.text.prefix(200))) }
        return reply
    }

    func write(_ text: String, step: String) async throws(SMTPError) {
        do {
            try await channel.writeAndFlush(ByteBuffer(string: text))
        } catch let error as NIOSSLError {
            throw .tlsFailed(reason: "\(error)")
        } catch {
            throw .connectionClosed(step: step)
        }
    }

    /// Puts TLS in front of the reply handler (after the server's 220 to STARTTLS).
    func startTLS(serverHostname: String, caFile: String?) async throws(SMTPError) {
        do {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let caFile { configuration.trustRoots = .file(caFile) }
            let context = try NIOSSLContext(configuration: configuration)
            let channel = self.channel
            // SNI only for names, not IP literals.
            let sniName = serverHostname.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } ? nil : serverHostname
            try await channel.eventLoop.submit {
                let handler = try NIOSSLClientHandler(context: context, serverHostname: sniName)
                try channel.pipeline.syncOperations.addHandler(handler, position: .first)
            }.get()
        } catch {
            throw .tlsFailed(reason: "\(error)")
        }
    }

    func close() async {
        try? await channel.close()
    }
}
