import Hummingbird
import StackMobCore

/// `RequestBodyBudget` as a router's middleware, for the listeners with a router (the push
/// host); the API port counts in `CallerMiddleware`.
struct RequestBodyBudgetMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let budget: RequestBodyBudget
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let bytes = budget.countedBytes(of: request)
        guard bytes > 0 else { return try await next(request, context) }
        let client = ClientOrigin(request, context: context, proxies: proxies).address
        return try await budget.holding(bytes, client: client) { try await next(request, context) }
    }
}
