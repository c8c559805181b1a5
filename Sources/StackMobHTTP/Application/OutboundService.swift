import ServiceLifecycle
import StackMobCore

/// Runs with the application and shuts the outbound clients down once it stops, after push
/// (services stop in reverse order) and before the databases.
struct OutboundService: Service, CustomStringConvertible {
    let gateways: any OutboundGateways
    var description: String { "OutboundService" }

    func run() async throws {
        try? await gracefulShutdown()
        await gateways.shutdown()
    }
}
