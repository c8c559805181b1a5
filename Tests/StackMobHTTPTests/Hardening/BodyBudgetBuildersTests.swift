import StackMobCore
@testable import StackMobHTTP
import Testing

/// The first of a client's requests building a counted answer may pass what its other builders
/// hold of the client's share (`BodyBudget.Holding.keep`, docs/architecture.md, "Memory per
/// request"). Checked on the budget itself: which request is first is a matter of timing over
/// HTTP.
@Suite("Body budgets: a client's first builder")
struct BodyBudgetBuildersTests {
    static let kibibyte = 1024

    /// One client's share of 1 MiB, 4 MiB in all.
    static func budget() -> BodyBudget {
        var configuration = StackMobConfiguration()
        configuration.maxBodyBytes = 1024 * kibibyte
        configuration.maxBodyBytesPerClient = 1024 * kibibyte
        configuration.maxBodyBytesInFlight = 4096 * kibibyte
        return BodyBudget(configuration: configuration)
    }

    static func builder(_ budget: BodyBudget) -> BodyBudget.Holding {
        BodyBudget.Holding(budget: budget, answer: true, builds: true, client: { "client" })
    }

    @Test("the first builder passes what the client's other builders hold, not what its answers hold")
    func firstPassesOthers() throws {
        let budget = Self.budget()
        try Self.firstPassesSecond(budget)
        // An answer holds the share: the first builder may not pass it.
        try Self.builderRefused(budget, behindAnswerOf: 900 * Self.kibibyte)
    }

    @Test("a builder refused at its first counted share is forgotten when it ends: it never stays first")
    func refusedBuilderIsForgotten() throws {
        let budget = Self.budget()
        // The share full of an answer: a builder's first keep registers it, then is refused.
        try Self.builderRefused(budget, behindAnswerOf: 1024 * Self.kibibyte)
        // Two builders later: the one that took a counted share first is first. Before, the
        // refused one stayed registered, first for good, and neither of these could pass.
        try Self.firstPassesSecond(budget)
    }

    /// An answer holding `bytes` of the share: a builder alone that asks for 300 KiB past it is
    /// refused. Both end.
    static func builderRefused(_ budget: BodyBudget, behindAnswerOf bytes: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let answer = BodyBudget.Holding(budget: budget, answer: true, client: { "client" })
        let alone = builder(budget)
        defer {
            alone.releaseAll()
            answer.releaseAll()
        }
        try answer.grow(to: bytes)
        #expect(throws: BodyBudget.Refused.self, sourceLocation: sourceLocation) { try alone.keep(300 * kibibyte) }
    }

    /// Two builders holding 1,000 KiB of the share: the second may not grow past it, the first
    /// may, by what the second holds.
    static func firstPassesSecond(_ budget: BodyBudget, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let first = builder(budget)
        let second = builder(budget)
        defer {
            first.releaseAll()
            second.releaseAll()
        }
        try first.keep(600 * kibibyte)
        try second.keep(400 * kibibyte)
        #expect(throws: BodyBudget.Refused.self, sourceLocation: sourceLocation) { try second.keep(500 * kibibyte) }
        try first.keep(900 * kibibyte)
    }
}
