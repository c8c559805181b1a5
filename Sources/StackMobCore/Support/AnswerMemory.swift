/// The memory a request takes while it builds an answer whose size it chooses: an expansion's
/// related objects, and its text (PROTOCOL §5.5), each within `limits.max_expanded_response_bytes`.
/// The HTTP layer counts it against the budgets its client's other requests and the whole server
/// share (docs/architecture.md, "Memory per request"): many such requests at once are refused as
/// they grow, rather than each building up to the limit before anything counts it.
public protocol AnswerMemory: Sendable {
    /// What a request may hold without its being counted: a take that leaves it within this
    /// never throws, so that small answers go through whatever large ones are built.
    var uncounted: Int { get }
    /// Takes `bytes` more until the request ends; throws, taking nothing, when they do not fit.
    func take(_ bytes: Int) throws
    /// Gives back `bytes` taken before that the request no longer holds.
    func giveBack(_ bytes: Int)
}

/// The `AnswerMemory` of the request under way, set by the HTTP layer around its handler; nil
/// outside a request, or for one that builds nothing of its choosing.
public enum AnswerMemoryScope {
    @TaskLocal public static var current: (any AnswerMemory)?
}
