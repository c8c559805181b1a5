import StackMobCore
import Synchronization

/// What a request takes while it builds an answer whose size it chooses (`AnswerMemory`: an
/// expansion's related objects and its text), counted against its client's share of the body
/// budgets and the listener's as it grows (`BodyBudget.Holding.keep(_:)`), until its handler
/// returns; its answer's text is counted from then on as every answer's is
/// (`BodyBudget.answering`). What does not fit is refused as a large answer is, with a `503` and
/// `Retry-After` that the SDKs retry (PROTOCOL §10.3). The first of a client's requests to build
/// a counted answer may pass what its other such requests hold of the client's share (never what
/// the client's bodies and answers hold, nor the listener's budget): requests building at once
/// never all fail for one another, and all a client builds holds at most twice its share. The
/// first `uncounted` bytes are never counted, so that small answers go through whatever large
/// ones are built.
///
/// Without it, each request built up to `limits.max_expanded_response_bytes` of related objects
/// and as much text before anything counted them: a client's connections, each asking for a
/// large expansion at once, held that many times as much.
final class CountedAnswerMemory: AnswerMemory {
    private let holding: BodyBudget.Holding
    private let state = Mutex(State())

    private struct State {
        var taken = 0
        /// Why the last take was refused, for a text that stopped without saying why
        /// (`grant(_:)`).
        var refusal: BodyBudget.Refused?
    }

    init(holding: BodyBudget.Holding) {
        self.holding = holding
    }

    var uncounted: Int { BodyBudget.uncounted }

    func take(_ bytes: Int) throws {
        try taking(bytes)
    }

    func giveBack(_ bytes: Int) {
        state.withLock { state in
            state.taken -= min(bytes, state.taken)
            // Never refused: it holds less than before.
            try? holding.keep(state.taken)
        }
    }

    /// `take(_:)` for the JSON writer, which cannot throw: false when the bytes do not fit, the
    /// refusal kept for `refusal`.
    func grant(_ bytes: Int) -> Bool {
        do throws(BodyBudget.Refused) {
            try taking(bytes)
            return true
        } catch {
            state.withLock { $0.refusal = error }
            return false
        }
    }

    private func taking(_ bytes: Int) throws(BodyBudget.Refused) {
        try state.withLock { (state: inout State) throws(BodyBudget.Refused) in
            try holding.keep(state.taken + bytes)
            state.taken += bytes
        }
    }

    /// Why the last `grant(_:)` was refused; nil when none was.
    var refusal: BodyBudget.Refused? { state.withLock { $0.refusal } }

    /// Gives back all the request took.
    func release() {
        holding.releaseAll()
    }
}
