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
/// unread: `503` with `Retry-After`, which every SDK retries (PROTOCOL §10.3).
///
/// A body read as JSON takes more memory parsed than as text: tens of bytes a value, where
/// `[1,1,…]` spends two bytes of text on each. Once parsed, its request's share grows to what the
/// parsed form may take (`grow(to:)`), and the request is refused the same way when that does not
/// fit: a client cannot hold many parsed bodies, small or large, past its share.
///
/// Smaller bodies never wait: a login or a small write, whose text and parsed form are both
/// under `uncounted`, goes through whatever large bodies are in flight.
final class RequestBodyBudget: Sendable {
    struct Refused: Error, Equatable {
        let perClient: Bool
        /// Refused once read and parsed: the connection may carry the next request.
        var afterReading = false
    }

    /// The share of the budgets the request under way holds, for the body reader to grow; nil
    /// outside a request counted by `counting(_:context:_:)`.
    @TaskLocal static var current: Holding?

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
    /// when it is large enough to count, and its share held for `grow(to:)`; throws `Refused`
    /// when it does not fit.
    nonisolated(nonsending) func counting<T>(
        _ request: Request, context: StackMobRequestContext, _ body: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        let bytes = Self.bytes(of: request, maxBodyBytes: maxBodyBytes)
        guard bytes > 0 else { return try await body() }
        let proxies = proxies
        let holding = Holding(budget: self) { Self.key(ClientOrigin(request, context: context, proxies: proxies).address) }
        if bytes > Self.uncounted { try holding.grow(to: bytes, bodyRead: false) }
        defer { holding.release() }
        return try await Self.$current.withValue(holding) { try await body() }
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

    private func reserve(_ bytes: Int, for client: String, afterReading: Bool) throws(Refused) {
        try held.withLock { (held: inout Held) throws(Refused) in
            let clients = held.byClient[client, default: 0]
            guard clients + bytes <= perClient else { throw Refused(perClient: true, afterReading: afterReading) }
            guard held.total + bytes <= total else { throw Refused(perClient: false, afterReading: afterReading) }
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

    /// What one request holds of both budgets: its body's declared length from the start when
    /// that counts, more once the body is parsed, all of it given back when it is answered.
    final class Holding: Sendable {
        private let budget: RequestBodyBudget
        /// Who the client is, worked out the first time the request takes a share.
        private let client: @Sendable () -> String
        private let share = Mutex<(client: String?, bytes: Int)>((nil, 0))

        init(budget: RequestBodyBudget, client: @escaping @Sendable () -> String) {
            self.budget = budget
            self.client = client
        }

        /// Grows the share to `bytes` (to the budgets' whole when it is more, so that a request
        /// alone always fits), when that is more than it holds and more than `uncounted`. Throws
        /// `Refused` when it does not fit, holding what it held; `bodyRead` says whether the
        /// connection has read the body by then.
        func grow(to bytes: Int, bodyRead: Bool = true) throws(Refused) {
            let target = min(bytes, budget.perClient, budget.total)
            try share.withLock { (share: inout (client: String?, bytes: Int)) throws(Refused) in
                guard target > share.bytes, target > RequestBodyBudget.uncounted else { return }
                let client = share.client ?? self.client()
                try budget.reserve(target - share.bytes, for: client, afterReading: bodyRead)
                share = (client, target)
            }
        }

        func release() {
            share.withLock { share in
                if let client = share.client, share.bytes > 0 { budget.release(share.bytes, for: client) }
                share = (nil, 0)
            }
        }
    }
}
