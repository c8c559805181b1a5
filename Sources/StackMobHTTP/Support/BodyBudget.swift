import Hummingbird
import NIOCore
import StackMobCore
import StackMobHTTPServer
import Synchronization

/// The bodies a listener holds in memory at once, per client and in all
/// (`limits.max_body_bytes_per_client`, `limits.max_body_bytes_in_flight`): the requests' bodies,
/// and the answers their clients have not yet taken. Each request may send up to
/// `limits.max_body_bytes`, and a handler reads its body whole before it answers (and holds it,
/// parsed, until then); an answer may be a few megabytes (a batch of a long answer) or up to
/// `limits.max_expanded_response_bytes`, held until the client's socket takes it. Without a bound
/// across requests, one client's connections, each sending a large body or reading its answer a
/// few bytes at a time, hold that many bodies at once, and a few hundred of them exhaust the
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
/// An answer larger than `uncounted` takes its length from both budgets once it is made, and
/// each part written takes its own bytes, until the socket has taken all but the last `uncounted`
/// bytes of it (`answering(_:to:context:)`). A read's answer that does not fit is refused the same
/// way, before anything of it is sent; a part of a streamed answer that does not fit ends it, and
/// the connection with it, as any failure in the middle of a streamed answer does. A write's
/// answer is never refused, for the write is done and the SDKs would send it again: it is counted
/// past the budgets if need be, and a client whose share its answers have used up may start no
/// further write until it takes them (`counting(_:context:_:)`).
///
/// Smaller bodies never wait: a login, a small write or a small answer, whose text and parsed
/// form are both under `uncounted`, goes through whatever large bodies are in flight.
final class BodyBudget: Sendable {
    struct Refused: Error, Equatable {
        let perClient: Bool
        /// Refused once read and parsed, or once answered: the connection may carry the next
        /// request.
        var afterReading = false
        /// Refused for its answer rather than its body.
        var answer = false
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
        /// The part of `byClient` that answers hold.
        var answersByClient: [String: Int] = [:]
        /// The requests building an answer that counts (`CountedAnswerMemory`), by client.
        var buildersByClient: [String: Builders] = [:]
        var nextBuilder = 0
    }

    /// A client's requests building an answer that counts: their numbers, in the order they
    /// first took a counted share, and what they hold in all (a part of `byClient`).
    private struct Builders {
        var order: [Int] = []
        var bytes = 0
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
        if bytes <= Self.uncounted, !Self.isRead(request) { try admitWrite(request, context: context) }
        guard bytes > 0 else { return try await building(request, context: context, body) }
        let holding = Holding(budget: self, answer: false, client: client(of: request, context: context))
        if bytes > Self.uncounted { try holding.grow(to: bytes, bodyRead: false) }
        defer { holding.release() }
        return try await Self.$current.withValue(holding) { try await building(request, context: context, body) }
    }

    /// Runs `body` with what it builds of an answer whose size `request` chooses (an expansion)
    /// counted as it grows (`CountedAnswerMemory`), given back when it returns: every request
    /// that may ask for one in any spelling the handlers accept (`ExpandDepth.mayBeAsked`).
    private nonisolated(nonsending) func building<T>(
        _ request: Request, context: StackMobRequestContext, _ body: nonisolated(nonsending) () async throws -> T
    ) async throws -> T {
        guard ExpandDepth.mayBeAsked(request) else { return try await body() }
        let memory = CountedAnswerMemory(holding: Holding(budget: self, answer: true, builds: true, client: client(of: request, context: context)))
        defer { memory.release() }
        return try await AnswerMemoryScope.$current.withValue(memory) { try await body() }
    }

    /// `response`, counted against its client's budget and the listener's when it is large
    /// enough to count: its length now (a streamed answer: a batch, `JSONArrayResponse`'s part),
    /// and each part written until the socket has taken it (`CountedAnswerWriter`). A read's
    /// answer that does not fit throws `Refused`, before anything of it is sent; a write's, or
    /// one the caller says is not `refusable` (a `GET` that may have changed something), is
    /// counted whether it fits or not. A response to `HEAD` sends no body, and is not counted.
    func answering(_ response: Response, to request: Request, context: StackMobRequestContext, refusable: Bool = true) throws(Refused) -> Response {
        let length = response.body.contentLength
        guard (length ?? .max) > Self.uncounted, request.method != .head else { return response }
        let holding = Holding(budget: self, answer: true, mayRefuse: refusable && Self.isRead(request), client: client(of: request, context: context))
        // What the answer holds until it is written besides its text (a streamed list's keys)
        // first: the most that grows with what is stored; its text is counted a part at a time.
        try holding.keep(context.notes.answerKeeps)
        try holding.grow(to: length ?? JSONArrayResponse.Batches.targetBytes)
        var counted = response
        let body = response.body
        counted.body = ResponseBody(contentLength: length) { writer in
            try await body.write(CountedAnswerWriter(inner: writer, holding: holding))
        }
        return counted
    }

    /// A request that changes nothing, whose answer may be refused and asked for again.
    private static func isRead(_ request: Request) -> Bool {
        request.method == .get || request.method == .head
    }

    /// Refuses a write with a small body, before anything reads it or does it, from a client
    /// whose share the answers it has not taken have used up: a write's answer is counted past the
    /// share rather than refused once the write is done, so it is here that a client holding its
    /// answers unread is stopped (a large body is refused by its own share). Only the client's own
    /// answers: other clients' writes, a login among them, go on whatever the listener holds, and
    /// so do this client's while large bodies, not answers, take its share.
    private func admitWrite(_ request: Request, context: StackMobRequestContext) throws(Refused) {
        guard held.withLock({ !$0.answersByClient.isEmpty }) else { return }
        let client = client(of: request, context: context)()
        let spent = held.withLock { $0.answersByClient[client, default: 0] >= perClient }
        if spent { throw Refused(perClient: true, afterReading: false, answer: true) }
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

    /// Who sent `request`, worked out when asked: its address behind a trusted proxy
    /// (`ClientOrigin`), as `key(_:)` counts it.
    private func client(of request: Request, context: StackMobRequestContext) -> @Sendable () -> String {
        let proxies = proxies
        return { Self.key(ClientOrigin(request, context: context, proxies: proxies).address) }
    }

    /// An IPv6 client by its /64, as `limits.max_connections_per_client` counts it.
    private static func key(_ client: String?) -> String {
        guard let client else { return "" }
        guard let address = try? SocketAddress(ipAddress: client, port: 0) else { return client }
        return ConnectionCounter.clientKey(address) ?? client
    }

    /// Takes `bytes` for `client`; throws `Refused` when they do not fit, unless `mayRefuse` is
    /// false. An answer's `bytes` stop the client's writes (`admitWrite`) unless they are `kept`:
    /// what the answer holds besides its text. A `builder` (`register(builderOf:)`), holding
    /// `own` already, that is its client's first may pass what the client's other builders hold
    /// of its share, so that they never all fail for one another; never what its bodies and
    /// answers hold, nor the listener's budget.
    private func reserve(
        _ bytes: Int, for client: String, afterReading: Bool, answer: Bool, kept: Bool = false, mayRefuse: Bool, builder: Int? = nil,
        own: Int = 0
    ) throws(Refused) {
        try held.withLock { (held: inout Held) throws(Refused) in
            let clients = held.byClient[client, default: 0]
            if mayRefuse {
                var fits = clients + bytes <= perClient
                if !fits, let builder, let builders = held.buildersByClient[client], builders.order.first == builder {
                    fits = clients - (builders.bytes - own) + bytes <= perClient
                }
                guard fits else { throw Refused(perClient: true, afterReading: afterReading, answer: answer) }
                guard held.total + bytes <= total else { throw Refused(perClient: false, afterReading: afterReading, answer: answer) }
            }
            held.byClient[client] = clients + bytes
            held.total += bytes
            if answer && !kept { held.answersByClient[client, default: 0] += bytes }
            if builder != nil { held.buildersByClient[client, default: Builders()].bytes += bytes }
        }
    }

    /// A request of `client` that builds an answer, from now on, after those before it: its
    /// number for `reserve` and `unregister`.
    private func register(builderOf client: String) -> Int {
        held.withLock { held in
            held.nextBuilder += 1
            held.buildersByClient[client, default: Builders()].order.append(held.nextBuilder)
            return held.nextBuilder
        }
    }

    private func unregister(builder: Int, of client: String) {
        held.withLock { held in
            held.buildersByClient[client]?.order.removeAll { $0 == builder }
            if held.buildersByClient[client]?.order.isEmpty == true { held.buildersByClient[client] = nil }
        }
    }

    /// Gives back `bytes` of `client`'s: an answer's text's when `answer`, a builder's when
    /// `builder`.
    private func release(_ bytes: Int, for client: String, answer: Bool, builder: Bool = false) {
        held.withLock { held in
            let left = held.byClient[client, default: bytes] - bytes
            held.byClient[client] = left > 0 ? left : nil
            held.total -= bytes
            if answer {
                let answers = held.answersByClient[client, default: bytes] - bytes
                held.answersByClient[client] = answers > 0 ? answers : nil
            }
            if builder { held.buildersByClient[client]?.bytes -= bytes }
        }
    }

    /// What one request holds of both budgets: its body's declared length from the start when
    /// that counts, more once the body is parsed, all of it given back when it is answered; or,
    /// for its answer, the part being written. Given back at the latest when nothing refers to
    /// it any more: an answer dropped unwritten (its connection closed) holds nothing.
    final class Holding: Sendable {
        private let budget: BodyBudget
        /// Whether it holds an answer's bytes rather than a request body's.
        private let answer: Bool
        /// False for a write's answer: counted, never refused.
        private let mayRefuse: Bool
        /// Who the client is, worked out the first time the request takes a share.
        private let client: @Sendable () -> String
        /// Whether it holds what a request builds (`CountedAnswerMemory`): the first of its
        /// client's such holdings to take a counted share may pass what the others hold of the
        /// client's share (`reserve`), so that requests building at once never all fail for one
        /// another.
        private let builds: Bool
        private let share = Mutex<Share>(Share())

        private struct Share {
            var client: String?
            /// The body's, or the answer's part being written.
            var bytes = 0
            /// What the answer holds besides its text until it ends (`keep(_:)`): counted apart
            /// from the answer's bytes, so that it does not stop the client's writes
            /// (`admitWrite`), and left by `release()`.
            var kept = 0
            /// Its number among its client's builders, once it took a counted share.
            var builder: Int?
        }

        init(budget: BodyBudget, answer: Bool, mayRefuse: Bool = true, builds: Bool = false, client: @escaping @Sendable () -> String) {
            self.budget = budget
            self.answer = answer
            self.mayRefuse = mayRefuse
            self.builds = builds
            self.client = client
        }

        deinit {
            releaseAll()
        }

        /// Grows the share to `bytes` (to the budgets' whole when it is more, so that a request
        /// alone always fits), when that is more than it holds and more than `uncounted`. Throws
        /// `Refused` when it does not fit, holding what it held; `bodyRead` says whether the
        /// connection has read the body by then.
        func grow(to bytes: Int, bodyRead: Bool = true) throws(Refused) {
            try share.withLock { (share: inout Share) throws(Refused) in
                let target = min(bytes, budget.perClient - share.kept, budget.total - share.kept)
                guard target > share.bytes, target > BodyBudget.uncounted else { return }
                let client = share.client ?? self.client()
                try budget.reserve(target - share.bytes, for: client, afterReading: bodyRead, answer: answer, mayRefuse: mayRefuse)
                share.client = client
                share.bytes = target
            }
        }

        /// Holds `bytes` besides the share's own until the answer ends, whatever its parts give
        /// back (`release()`), within the budgets' whole with them: what the answer holds
        /// besides its text while it is written, or what a request holds while it builds an
        /// answer (`CountedAnswerMemory`). Less than it holds gives the rest back. Throws
        /// `Refused` as `grow(to:)` does.
        func keep(_ bytes: Int) throws(Refused) {
            try share.withLock { (share: inout Share) throws(Refused) in
                var target = min(bytes, budget.perClient - share.bytes, budget.total - share.bytes)
                if target <= BodyBudget.uncounted { target = 0 }
                guard let client = share.client ?? (target > 0 ? self.client() : nil), target != share.kept else { return }
                // Known before anything is taken, so that `releaseAll` finds a builder registered
                // by a keep that was then refused.
                share.client = client
                if target < share.kept {
                    budget.release(share.kept - target, for: client, answer: false, builder: share.builder != nil)
                } else {
                    if builds, share.builder == nil { share.builder = budget.register(builderOf: client) }
                    try budget.reserve(
                        target - share.kept, for: client, afterReading: true, answer: answer, kept: true, mayRefuse: mayRefuse, builder: share.builder,
                        own: share.kept)
                }
                share.kept = target
            }
        }

        /// Gives back the share's own bytes; what it keeps (`keep(_:)`) stays.
        func release() {
            share.withLock { share in
                if let client = share.client, share.bytes > 0 { budget.release(share.bytes, for: client, answer: answer) }
                share.bytes = 0
                if share.kept == 0, share.builder == nil { share.client = nil }
            }
        }

        /// Gives back the whole share, what it keeps included.
        func releaseAll() {
            share.withLock { share in
                if let client = share.client {
                    if share.bytes > 0 { budget.release(share.bytes, for: client, answer: answer) }
                    if share.kept > 0 { budget.release(share.kept, for: client, answer: false, builder: share.builder != nil) }
                    if let builder = share.builder { budget.unregister(builder: builder, of: client) }
                }
                share = Share()
            }
        }
    }
}
