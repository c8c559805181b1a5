import HTTPTypes
import StackMobCore
import StackMobHTTPServer

extension HTTP1ConnectionSettings {
    /// A listener's settings from the server's configuration (`limits.*`).
    ///
    /// A request past its deadline gets 504 with a JSON error, rather than 503: the JS SDK retries
    /// every 503, and a write that timed out must not be sent again behind the app's back. It
    /// carries `X-StackMob-Time-MS` as every other response does (`ServerHeadersMiddleware`).
    init(_ configuration: StackMobConfiguration, clock: any ServerClock, connections: ConnectionCounter) {
        self.init(
            headTimeout: .seconds(Int64(configuration.headerTimeoutSeconds)),
            newConnectionTimeout: .seconds(Int64(configuration.newConnectionTimeoutSeconds)),
            bodyTimeout: .seconds(Int64(configuration.bodyTimeoutSeconds)),
            idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)),
            requestTimeoutSeconds: configuration.requestTimeoutSeconds,
            serverName: "StackMob Server",
            connections: connections,
            timeoutResponse: { seconds in
                var response = ErrorMapping.response(for: RequestTimedOut(seconds: seconds))
                response.headers[.stackMobTimeMS] = String(clock.nowMilliseconds())
                return response
            })
    }
}
