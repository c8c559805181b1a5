import Hummingbird

/// `HEAD /` (PROTOCOL §13.1, D33): the iOS SDK's reachability probe. 200, empty body, no
/// credentials needed.
struct ServerController {
    func addRoutes(to router: RecordingRouter<APIRouterBuilder>) {
        router.route(.head, "/") { _, _ in JSONResponse.empty() }
    }
}
