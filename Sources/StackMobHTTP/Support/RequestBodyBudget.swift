import Hummingbird
import NIOCore
import StackMobCore
import StackMobHTTPServer
import Synchronization

/// The request bodies a listener holds in memory at once, per client and in all
/// (`limits.max_body_bytes_per_client`, `limits.max_body_bytes_in_flight`). Each request may send
/// up to `limits.max_body_bytes`, and a handler reads its body whole before it answers (and holds
/// it, parsed, until then): without a bound across requests, one client's connections, each
/// sending a large body, hold that many bodies at once, and a few hundred of them exhaust the
/// machine's memory.
///
/// A body larger than what the connection reads whole anyway
/// (`HTTP1ConnectionStateMachine.wholeBodyLimit`) takes its declared length from both budgets
/// before anything reads it (a body without a `Content-Length`: the most it may send), and gives
/// it back once its request is answered. One that does not fit is refused at once, its body
/// unread: `503` with `Retry-After`, which every SDK retries (PROTOCOL §10.3). Smaller bodies
/// never wait: a login or a small write goes through whatever large bodies are in flight.
final class RequestBodyBudget: Sendable {
    struct Refused: Error, Equatable {
        let perClient: Bool
    }

    let perClient: Int
    let total: Int
    private let maxBodyBytes: Int
    private let held = Mutex(Held())

    private struct Held {
        var total = 0
        var byClient: [String: Int] = [:]
    }

    /// Bodies of at most this many bytes are not counted.
    static let uncounted = 64 * 1024

    init(perClient: Int, total: Int, maxBodyBytes: Int) {
        self.perClient = perClient
        self.total = total
        self.maxBodyBytes = maxBodyBytes
    }

    convenience init(configuration: StackMobConfiguration) {
        self.init(
            perClient: configuration.maxBodyBytesPerClient, total: configuration.maxBodyBytesInFlight, maxBodyBytes: configuration.maxBodyBytes)
    }

    /// The bytes `request`'s body is counted for; 0 when it is not counted.
    func countedBytes(of request: Request) -> Int {
        let bytes = Self.bytes(of: request, maxBodyBytes: maxBodyBytes)
        return bytes > Self.uncounted ? bytes : 0
    }

    /// Runs `body` with `bytes` (`countedBytes(of:)`) counted against the budgets of `client`,
    /// the client's address (`ClientOrigin`; nil when the socket has none).
    nonisolated(nonsending) func holding<T>(
        _ bytes: Int, client: String?, _ body: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        let key = Self.key(client)
        try reserve(bytes, for: key)
        defer { release(bytes, for: key) }
        return try await body()
    }

    /// What a request's body may take: its declared length, else the most a body may be; none
    /// for a request that says it has no body. A declared length past the limit is refused later
    /// with a 413 by the reader, without reading it: it is counted as the limit.
    static func bytes(of request: Request, maxBodyBytes: Int) -> Int {
        if let length = request.headers[.contentLength] {
            return min(Int(length) ?? maxBodyBytes, maxBodyBytes)
        }
        return request.headers[.transferEncoding] == nil ? 0 : maxBodyBytes
    }

    /// An IPv6 client by its /64, as `limits.max_connections_per_client` counts it.
    private static func key(_ client: String?) -> String {
        guard let client else { return "" }
        guard let address = try? SocketAddress(ipAddress: client, port: 0) else { return client }
        return ConnectionCounter.clientKey(address) ?? client
    }

    private func reserve(_ bytes: Int, for client: String) throws(Refused) {
        try held.withLock { (held: inout Held) throws(Refused) in
            let clients = held.byClient[client, default: 0]
            guard clients + bytes <= perClient else { throw Refused(perClient: true) }
            guard held.total + bytes <= total else { throw Refused(perClient: false) }
            held.byClient[client] = clients + bytes
            held.total += bytes
        }
    }

    private func release(_ bytes: Int, for client: String) {
        held.withLock { held in
            let left = held.byClient[client, default: bytes] - bytes
            held.byClient[client] = left > 0 ? left : nil
            held.total -= bytes
        }
    }
}
