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
}
