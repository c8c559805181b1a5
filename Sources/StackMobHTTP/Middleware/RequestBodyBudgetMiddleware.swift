import Hummingbird

/// `RequestBodyBudget` as a router's middleware, for the listeners with a router (the push
/// host, the admin API and console); the API port counts in `CallerMiddleware`.
struct RequestBodyBudgetMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let budget: RequestBodyBudget

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await budget.counting(request, context: context) { try await next(request, context) }
    }
}
