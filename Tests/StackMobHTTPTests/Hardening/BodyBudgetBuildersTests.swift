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
        let first = Self.builder(budget)
        let second = Self.builder(budget)
        try first.keep(600 * Self.kibibyte)
        try second.keep(400 * Self.kibibyte)
        // 1,000 KiB held: the second may not grow past the share, the first may, by what the
        // second holds.
        #expect(throws: BodyBudget.Refused.self) { try second.keep(500 * Self.kibibyte) }
        try first.keep(900 * Self.kibibyte)
        first.releaseAll()
        second.releaseAll()

        // An answer holds the share: the first builder may not pass it.
        let answer = BodyBudget.Holding(budget: budget, answer: true, client: { "client" })
        try answer.grow(to: 900 * Self.kibibyte)
        let alone = Self.builder(budget)
        #expect(throws: BodyBudget.Refused.self) { try alone.keep(300 * Self.kibibyte) }
        alone.releaseAll()
        answer.releaseAll()
    }

    @Test("a builder refused at its first counted share is forgotten when it ends: it never stays first")
    func refusedBuilderIsForgotten() throws {
        let budget = Self.budget()
        // The share full of an answer: a builder's first keep registers it, then is refused.
        let answer = BodyBudget.Holding(budget: budget, answer: true, client: { "client" })
        try answer.grow(to: 1024 * Self.kibibyte)
        let refused = Self.builder(budget)
        #expect(throws: BodyBudget.Refused.self) { try refused.keep(300 * Self.kibibyte) }
        refused.releaseAll()
        answer.releaseAll()
        // Two builders later: the one that took a counted share first is first. Before, the
        // refused one stayed registered, first for good, and neither of these could pass.
        let first = Self.builder(budget)
        let second = Self.builder(budget)
        try first.keep(600 * Self.kibibyte)
        try second.keep(400 * Self.kibibyte)
        try first.keep(900 * Self.kibibyte)
        first.releaseAll()
        second.releaseAll()
    }
}
