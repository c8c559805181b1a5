import HummingbirdCore
import Logging
import NIOCore
import StackMobCore

extension HTTPServerBuilder {
    /// HTTP/1.1 as the API and push listeners serve it: each connection guarded
    /// (`ConnectionGuardHandler`: head and body timeouts, the connection cap) and closed after
    /// `limits.idle_timeout_seconds` without traffic.
    static func stackMob(_ configuration: StackMobCore.ServerConfiguration, logger: Logger) -> HTTPServerBuilder {
        let limits = ConnectionGuardHandler.Limits(
            headTimeout: .seconds(Int64(configuration.headerTimeoutSeconds)), bodyTimeout: .seconds(Int64(configuration.bodyTimeoutSeconds)))
        // One count per listener, shared by its connections.
        let connections = ConnectionCounter(limit: configuration.maxConnections, logger: logger)
        let http1 = HTTP1Channel.Configuration(
            // An autoclosure: every connection gets its own handler.
            additionalChannelHandlers: [ConnectionGuardHandler(limits: limits, connections: connections)],
            idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)))
        return HTTPServerBuilder { responder in
            EventLoopBoundChannel(base: HTTP1Channel(responder: responder, configuration: http1))
        }
    }
}
