import NIOCore
import NIOHTTP1
import StackMobCore

/// What every connection of one listener shares: its limits, the names it answers with, and the
/// listener-wide state (the connection count, the requests' deadlines, the `Date` header).
struct HTTP1ConnectionSettings: Sendable {
    /// `limits.header_timeout_seconds`: a request head still incomplete this long after its first
    /// byte closes the connection.
    var headTimeout: TimeAmount
    /// `limits.new_connection_timeout_seconds`: a connection whose first request head is still
    /// incomplete this long after it was accepted is closed.
    var newConnectionTimeout: TimeAmount
    /// `limits.body_timeout_seconds`: a body still incomplete this long after its head fails with
    /// `RequestBodyTimeout` (408).
    var bodyTimeout: TimeAmount
    /// `limits.idle_timeout_seconds`: a connection without a request this long is closed.
    var idleTimeout: TimeAmount
    /// `limits.request_timeout_seconds`: past it a request's work is cancelled and it gets 504.
    var requestTimeoutSeconds: Int
    /// The `Server` header of every response.
    var serverName: String
    /// Hummingbird's defaults (80 KiB of header fields, 1,000 of them), which the server has
    /// always applied.
    var decoderLimits: NIOHTTPDecoderLimitConfiguration
    let connections: ConnectionCounter
    let deadlines: RequestDeadlines
    let date: DateHeader
    let requestIDs: RequestIDs
    let clock: any ServerClock

    init(_ configuration: StackMobCore.StackMobConfiguration, clock: any ServerClock, connections: ConnectionCounter) {
        headTimeout = .seconds(Int64(configuration.headerTimeoutSeconds))
        newConnectionTimeout = .seconds(Int64(configuration.newConnectionTimeoutSeconds))
        bodyTimeout = .seconds(Int64(configuration.bodyTimeoutSeconds))
        idleTimeout = .seconds(Int64(configuration.idleTimeoutSeconds))
        requestTimeoutSeconds = configuration.requestTimeoutSeconds
        serverName = "StackMob Server"
        decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderFieldSize = 80 * 1024
        decoderLimits.maxHeaderListSize = 80 * 1024
        decoderLimits.maxHeaderFieldCount = 1_000
        self.connections = connections
        deadlines = RequestDeadlines()
        date = DateHeader()
        requestIDs = RequestIDs()
        self.clock = clock
    }
}
