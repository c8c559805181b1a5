import Hummingbird
import StackMobCore

/// Objects of any schema over the admin API, as the private key would act: the same
/// handlers as the StackMob API (full query language, `Range`, `X-StackMob-Select`, expansion,
/// relations), under `/_admin/environments/<env>/objects/<schema>[/<id>]`. Writes are audited
/// by schema and id, never by value.
struct AdminObjectsController {
    let backend: Backend
    let fileOrigin: StoredFileOrigin

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        let objects = DatastoreController(
            maxBodyBytes: backend.configuration.maxBodyBytes, fileStore: backend.files, files: backend.configuration.files, fileOrigin: fileOrigin)
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
        AdminRequest.asPrivateKey(backend: backend, handler, audit: action)
    }
}
