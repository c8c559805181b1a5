import Hummingbird
import NIOCore
import NIOHTTP1

/// What every connection of one listener shares: its limits, the names it answers with, and the
/// listener-wide state (the connection count, the requests' deadlines, the `Date` header).
public struct HTTP1ConnectionSettings: Sendable {
    /// `limits.header_timeout_seconds`: a request head still incomplete this long after its first
    /// byte closes the connection.
    public var headTimeout: TimeAmount
    /// `limits.new_connection_timeout_seconds`: a connection whose first request head is still
    /// incomplete this long after it was accepted is closed.
    public var newConnectionTimeout: TimeAmount
    /// `limits.body_timeout_seconds`: a body still incomplete this long after its head fails with
    /// `RequestBodyTimeout` (408).
    public var bodyTimeout: TimeAmount
    /// `limits.idle_timeout_seconds`: a connection without a request this long is closed.
    public var idleTimeout: TimeAmount
    /// `limits.request_timeout_seconds`: past it a request's work is cancelled and it gets
    /// `timeoutResponse`.
    public var requestTimeoutSeconds: Int
    /// What a request past its deadline gets, in place of whatever its work answered, given the
    /// deadline in seconds: the caller's, so that its body is the caller's error format.
    public var timeoutResponse: @Sendable (_ seconds: Int) -> Response
    /// The `Server` header of every response.
    public var serverName: String
    /// Hummingbird's defaults (80 KiB of header fields, 1,000 of them), which the server has
    /// always applied.
    public var decoderLimits: NIOHTTPDecoderLimitConfiguration
    public let connections: ConnectionCounter
    let deadlines: RequestDeadlines
    let date: DateHeader
    let requestIDs: RequestIDs

    public init(
        headTimeout: TimeAmount, newConnectionTimeout: TimeAmount, bodyTimeout: TimeAmount, idleTimeout: TimeAmount,
        requestTimeoutSeconds: Int, serverName: String, connections: ConnectionCounter,
        timeoutResponse: @escaping @Sendable (_ seconds: Int) -> Response
    ) {
        self.headTimeout = headTimeout
        self.newConnectionTimeout = newConnectionTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.timeoutResponse = timeoutResponse
        self.serverName = serverName
        decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderFieldSize = 80 * 1024
        decoderLimits.maxHeaderListSize = 80 * 1024
        decoderLimits.maxHeaderFieldCount = 1_000
        self.connections = connections
        deadlines = RequestDeadlines()
        date = DateHeader()
        requestIDs = RequestIDs()
    }
}
