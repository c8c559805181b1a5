import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP connection that sends exactly the bytes it is given: for requests no HTTP client would
/// send (bad framing, unsupported codings, upgrades, slow bodies) and for watching what the server
/// does with the connection afterwards.
public final class RawConnection: Sendable {
    /// A response as it came off the wire.
    public struct Response: Sendable {
        public var status: Int
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: String
    }

    private let channel: any Channel
    private let inbox: Inbox

    private init(channel: any Channel, inbox: Inbox) {
        self.channel = channel
        self.inbox = inbox
    }

    public static func connect(port: Int, host: String = "127.0.0.1") async throws -> RawConnection {
        let inbox = Inbox()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(inbox: inbox)) }
            }
            .connect(host: host, port: port).get()
        return RawConnection(channel: channel, inbox: inbox)
    }

    public func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// The next whole response: its body delimited by `Content-Length`, or by the connection's
    /// close when there is none. Nil if none arrived within `timeout`.
    public func response(timeout: Duration = .seconds(10)) async throws -> Response? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let response = inbox.takeResponse() { return response }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Sends `piece(n)` every `interval`, as a slow client would, until the server closes the
    /// connection (true) or `timeout` passes (false).
    public func trickle(every interval: Duration = .milliseconds(250), for timeout: Duration = .seconds(10), _ piece: (Int) -> String)
        async throws -> Bool
    {
        let deadline = ContinuousClock.now + timeout
        var index = 0
        while ContinuousClock.now < deadline {
            try? await send(piece(index))
            index += 1
            if try await closedByServer(within: interval) { return true }
        }
        return false
    }

    /// Whether the server closed the connection within `timeout`.
    public func closedByServer(within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if inbox.isClosed { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return inbox.isClosed
    }

    public func close() async {
        try? await channel.close()
    }

    /// Half-closes: the server reads the end of the stream, and can still answer.
    public func closeOutput() async throws {
        try await channel.close(mode: .output)
    }

    /// Closes abortively: with a zero linger time the kernel sends RST instead of FIN, as a
    /// client killed or cut off by a network failure does.
    public func reset() async {
        if let provider = channel as? any SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }
}

/// What the server sent so far, and whether it closed.
private final class Inbox: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var closed = false
    }

    private let state = Mutex(State())

    var isClosed: Bool { state.withLock { $0.closed } }

    func append(_ buffer: ByteBuffer) {
        state.withLock { $0.bytes += buffer.readableBytesView }
    }

    func markClosed() {
        state.withLock { $0.closed = true }
    }

    /// Removes and returns the first complete response, if one has arrived.
    func takeResponse() -> RawConnection.Response? {
        state.withLock { state in
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            guard let headEnd = state.bytes.firstRange(of: separator) else { return nil }
            let lines = String(decoding: state.bytes[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let statusParts = lines[0].split(separator: " ")
            guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let bodyStart = headEnd.upperBound
            let bodyEnd: Int
            if let length = headers["content-length"].flatMap({ Int($0) }) {
                guard state.bytes.count >= bodyStart + length else { return nil }
                bodyEnd = bodyStart + length
            } else if (100..<200).contains(status) || status == 204 || status == 304 {
                bodyEnd = bodyStart
            } else {
                guard state.closed else { return nil }
                bodyEnd = state.bytes.count
            }
            let body = String(decoding: state.bytes[bodyStart..<bodyEnd], as: UTF8.self)
            state.bytes.removeFirst(bodyEnd)
            return RawConnection.Response(status: status, headers: headers, body: body)
        }
    }
}

private final class Collector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let inbox: Inbox

    init(inbox: Inbox) {
        self.inbox = inbox
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inbox.append(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.markClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
