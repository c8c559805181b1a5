import Hummingbird
import StackMobCore

/// Push over the admin API (docs/operations.md, "Admin API"), with the push host's own handlers
/// acting as the private key: `GET /_admin/environments/<env>/push/tokens?user=<id>…`,
/// `POST …/push/notifications` (`{"payload", "users"|"tokens"}`, neither = everyone; audited),
/// `GET …/push/expired_tokens`. The outbox's state is `GET …/push` (`AdminEnvironmentController`).
struct AdminPushController {
    let backend: Backend

    func addRoutes(to router: some RouterMethods<StackMobRequestContext>) {
        let push = PushController(maxBodyBytes: backend.configuration.maxBodyBytes)
        router.get("/_admin/environments/:env/push/tokens", use: AdminRequest.asPrivateKey(backend: backend, push.tokensForUsers, audit: nil))
        router.post("/_admin/environments/:env/push/notifications", use: AdminRequest.asPrivateKey(backend: backend, push.notify, audit: "push.send"))
        router.get("/_admin/environments/:env/push/expired_tokens", use: AdminRequest.asPrivateKey(backend: backend, push.expiredTokens, audit: nil))
    }
}
