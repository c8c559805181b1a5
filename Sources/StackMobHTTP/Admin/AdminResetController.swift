import Hummingbird
import StackMobCore

/// CI mode: `POST /_admin/environments/<env>/reset` returns the environment to the fixture the
/// server started with (`--fixtures`; none: empties it) while the server serves. One
/// transaction: a client sees the old data or the fixture, never a mix. Audited.
///
/// Routed only for `environments` (`AdminSettings.resettable`); any other environment answers
/// as if the route did not exist, as it does on a server with none.
struct AdminResetController {
    let backend: Backend
    let fixtures: FixtureLoader
    let environments: Set<EnvironmentKind>

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        router.post("/_admin/environments/:env/reset", use: reset)
    }

    @Sendable func reset(_ request: Request, context: StackMobRequestContext) async throws -> Response {
        let environment = try AdminRequest.environment(context, backend: backend)
        guard environments.contains(environment.kind) else {
            throw RequestError.routeNotFound(method: request.method.rawValue, path: request.uri.path)
        }
        let start = ContinuousClock.now
        let written = try await fixtures.reset(environment.kind, backend: backend)
        let elapsed = ContinuousClock.now - start
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        try await backend.operators.audit(
            try AdminRequest.operatorName(context), action: "environment.reset",
            detail: ["environment": .string(environment.kind.rawValue), "objects": .integer(Int64(written))])
        return JSONResponse.make(["environment": .string(environment.kind.rawValue), "objects": .integer(Int64(written)), "milliseconds": .integer(milliseconds)])
    }
}
