import Foundation
import HTTPTypes
import HummingbirdTesting
import StackMobCore

/// Speaking to the push host (PROTOCOL §1.1, §11) of a running test server.
public enum PushHost {
    /// The push host name the clients below send; `OAuth1Signer.Endpoint` must sign it too.
    public static let authority = "push.localhost"
    public static let endpoint = OAuth1Signer.Endpoint(host: authority)

    /// A client on its own connection to `port` whose requests carry `Host: push.localhost`, as
    /// the SDKs' requests to `push.stackmob.com` do.
    public static func withClient<Value: Sendable>(
        port: Int, publicKey: String? = TestServer.developmentPublicKey, _ body: @escaping @Sendable (StackMobClient) async throws -> Value
    ) async throws -> Value {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection in
            try await body(StackMobClient(connection: connection, port: port, publicKey: publicKey, authority: authority))
        }
    }
}

extension StackMobClient {
    /// An OAuth 1.0 private-key request to the push host, signed as the given SDK signs it.
    public func pushSigned(
        _ method: HTTPRequest.Method, _ target: String, json: JSONValue? = nil, shape: OAuth1Signer.Shape = .java
    ) async throws -> APIResponse {
        try await oauth1(method, target, shape: shape, json: json, endpoint: PushHost.endpoint)
    }
}
