import HTTPTypes
import Hummingbird
import StackMobCore

/// The answer to a write that is done: its object with its relations expanded as the request asked
/// (PROTOCOL D3, D36), or, when the expansion would pass `limits.max_expanded_response_bytes` or
/// not fit its client's share of the body budgets (`CountedAnswerMemory`), as stored, its
/// relations as ids, as without expansion. A read past the limit is refused with `400`, and one
/// past the budgets with `503`; a write cannot be taken back, and a refusal would have the SDK
/// send it again.
enum WriteAnswer {
    static func make(
        _ object: JSONObject, in schema: String, expand: Int, status: HTTPResponse.Status = .ok, limit: Int, datastore: Datastore,
        context: StackMobRequestContext
    ) async throws -> Response {
        do {
            let expanded = try await datastore.expanded(object, in: schema, depth: expand, caller: context.caller)
            return try await JSONResponse.make(.object(expanded), status: status, expandedBy: expand, limit: limit)
        } catch DatastoreError.expansionTooLarge, RequestError.responseTooLarge {
            context.logger.notice(
                "A write's expanded answer would pass limits.max_expanded_response_bytes: answered with its relations as ids",
                metadata: ["sm.schema": "\(schema)", "sm.expand": "\(expand)", "sm.limit": "\(limit)"])
            return JSONResponse.make(.object(object), status: status)
        } catch is BodyBudget.Refused {
            context.logger.notice(
                "A write's expanded answer does not fit its client's share of the body budgets: answered with its relations as ids",
                metadata: ["sm.schema": "\(schema)", "sm.expand": "\(expand)"])
            return JSONResponse.make(.object(object), status: status)
        }
    }
}
