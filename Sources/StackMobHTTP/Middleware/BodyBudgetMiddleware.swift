import Hummingbird

/// `BodyBudget` as a router's middleware, for the listeners with a router (the push
/// host, the admin API and console); the API port counts in `CallerMiddleware`.
struct BodyBudgetMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    let budget: BodyBudget

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await budget.counting(request, context: context) { try await next(request, context) }
        return try budget.answering(response, to: request, context: context)
    }
}
