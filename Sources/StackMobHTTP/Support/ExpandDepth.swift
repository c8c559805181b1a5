import Hummingbird
import StackMobCore

/// The expansion depth a request asks for (PROTOCOL §5.5): the `X-StackMob-Expand` header (iOS,
/// Java, also on POST and PUT, D36) or the `_expand` query parameter (JS). 0 when neither is sent.
enum ExpandDepth {
    static func of(_ request: Request) throws -> Int {
        if let header = request.headers[.stackMobExpand] {
            return try QueryRequest.parseExpand(header)
        }
        if let parameter = try QueryString.parameters(request.uri.query).last(where: { $0.key == "_expand" }) {
            return try QueryRequest.parseExpand(parameter.value)
        }
        return 0
    }

    /// Whether `request` may ask for expansion, without parsing its query: its header, or a
    /// query holding `_expand` or a percent sign, behind which any of its letters may be
    /// encoded (`%5Fexpand`, `_%65xpand`: `of(_:)` decodes the names). For the body budgets,
    /// which count what an expansion builds (`BodyBudget`) and spare the requests that cannot
    /// ask for one the cost of counting.
    static func mayBeAsked(_ request: Request) -> Bool {
        guard request.headers[.stackMobExpand] == nil else { return true }
        guard let query = request.uri.query?.utf8 else { return false }
        return query.contains(UInt8(ascii: "%")) || query.firstRange(of: "_expand".utf8) != nil
    }
}
