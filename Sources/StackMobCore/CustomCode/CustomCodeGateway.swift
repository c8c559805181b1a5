/// Where a custom-code call goes (PROTOCOL §10.2): the method's webhook over HTTP in the server
/// (`StackMobAdapters`), a stub in tests. The HTTP layer forwards the reply as it is.
public protocol CustomCodeGateway: Sendable {
    /// Posts the call to `url` and returns its answer, at most `maxBodyBytes` of body.
    ///
    /// - Throws: `CustomCodeError.timedOut` past `timeoutSeconds`, `.unreachable` when no answer
    ///   came, so that the client gets the status the SDKs retry.
    func call(_ call: CustomCodeCall, url: String, timeoutSeconds: Int, maxBodyBytes: Int) async throws -> CustomCodeReply
}

/// A webhook's answer, forwarded to the client.
public struct CustomCodeReply: Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
