import Hummingbird
import StackMobCore

/// Objects of any schema over the admin API (issue 15), as the private key would act: the same
/// handlers as the StackMob API (full query language, `Range`, `X-StackMob-Select`, expansion,
/// relations), under `/_admin/environments/<env>/objects/<schema>[/<id>]`. Writes are audited
/// by schema and id, never by value.
struct AdminObjectsController {
    let backend: Backend

    func addRoutes(to router: Router<StackMobRequestContext>) {
        let objects = DatastoreController(maxBodyBytes: backend.configuration.maxBodyBytes, fileStore: backend.files, files: backend.configuration.files)
        let base = "/_admin/environments/:env/objects/:schema"
        router.get(RouterPath(base), use: acting(objects.query))
        router.post(RouterPath(base), use: acting(objects.create, audit: "objects.create"))
        router.delete(RouterPath(base), use: acting(objects.deleteMatching, audit: "objects.delete_matching"))
        router.get(RouterPath(base + "/:id"), use: acting(objects.read))
        router.put(RouterPath(base + "/:id"), use: acting(objects.update, audit: "objects.update"))
        router.delete(RouterPath(base + "/:id"), use: acting(objects.delete, audit: "objects.delete"))
    }

    private func acting(
        _ handler: @escaping @Sendable (Request, StackMobRequestContext) async throws -> Response, audit action: String? = nil
    ) -> @Sendable (Request, StackMobRequestContext) async throws -> Response {
        let backend = self.backend
        return { request, context in
            var context = context
            let environment = try AdminRequest.environment(context, backend: backend)
            context.environment = environment
            context.caller = .privateKey
            let response = try await handler(request, context)
            if let action, (200..<300).contains(response.status.code) {
                var detail: JSONObject = [
                    "environment": .string(environment.kind.rawValue), "schema": .string(context.parameters.get("schema") ?? ""),
                ]
                if let id = context.parameters.get("id") { detail["id"] = .string(id) }
                if request.uri.query != nil, context.parameters.get("id") == nil, request.method == .delete {
                    detail["query"] = .string(request.uri.query ?? "")
                }
                try await backend.operators.audit(try AdminRequest.operatorName(context), action: action, detail: .object(detail))
            }
            return response
        }
    }
}
