import HummingbirdCore
import NIOCore
import StackMobCore

extension HTTPServerBuilder {
    /// HTTP/1.1 as the API and push listeners serve it: each connection guarded
    /// (`ConnectionGuardHandler`) and closed after `limits.idle_timeout_seconds` without traffic.
    static func stackMob(_ configuration: StackMobCore.ServerConfiguration) -> HTTPServerBuilder {
        let bodyTimeout = TimeAmount.seconds(Int64(configuration.bodyTimeoutSeconds))
        return .http1(
            configuration: .init(
                // An autoclosure: every connection gets its own handler.
                additionalChannelHandlers: [ConnectionGuardHandler(bodyTimeout: bodyTimeout)],
                idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds))))
    }
}
