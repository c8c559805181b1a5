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
    /// Who the client is behind a trusted proxy (`ClientOrigin`).
    private let proxies: TrustedProxies
    private let held = Mutex(Held())

    private struct Held {
        var total = 0
        var byClient: [String: Int] = [:]
    }

    /// Bodies of at most this many bytes are not counted.
    static let uncounted = 64 * 1024

    init(configuration: StackMobConfiguration) {
        perClient = configuration.maxBodyBytesPerClient
        total = configuration.maxBodyBytesInFlight
        maxBodyBytes = configuration.maxBodyBytes
        proxies = configuration.trustedProxies
    }

    /// Runs `body` with `request`'s body counted against its client's budget and the listener's
    /// when it is large enough to count; throws `Refused` when it does not fit.
    nonisolated(nonsending) func counting<T>(
        _ request: Request, context: StackMobRequestContext, _ body: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        let bytes = Self.bytes(of: request, maxBodyBytes: maxBodyBytes)
        guard bytes > Self.uncounted else { return try await body() }
        let key = Self.key(ClientOrigin(request, context: context, proxies: proxies).address)
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
