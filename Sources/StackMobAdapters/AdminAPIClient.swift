import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StackMobCore

/// The admin API as a CLI command calls it (`stackmob-server reset`): signs an operator in and
/// sends one request with the session's bearer token.
public struct AdminAPIClient: Sendable {
    public let baseURL: String
    public let operatorName: String
    public let password: String

    public init(baseURL: String, operatorName: String, password: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.operatorName = operatorName
        self.password = password
    }

    /// What the server answered that was not a success: its status and JSON body.
    public struct Failure: Error, CustomStringConvertible {
        public let status: Int
        public let body: String
        public var description: String { "the server answered \(status): \(body)" }
    }

    /// `POST /_admin/environments/<env>/reset`; the answer's JSON.
    public func reset(_ environment: EnvironmentKind) async throws -> JSONValue {
        try await withClient { client in
            let token = try await signIn(client)
            return try await send(client, method: .POST, path: "/_admin/environments/\(environment.rawValue)/reset", body: [:], token: token)
        }
    }

    private func signIn(_ client: HTTPClient) async throws -> String {
        let answer = try await send(
            client, method: .POST, path: "/_admin/session", body: ["name": .string(operatorName), "password": .string(password)], token: nil)
        guard let token = answer.objectValue?["token"]?.stringValue else { throw Failure(status: 200, body: "no session token in the answer") }
        return token
    }

    private func send(_ client: HTTPClient, method: HTTPMethod, path: String, body: JSONValue, token: String?) async throws -> JSONValue {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(bytes: JSONWriter.bytes(body)))
        let response = try await client.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let text = String(buffer: bytes)
        guard (200..<300).contains(Int(response.status.code)) else { throw Failure(status: Int(response.status.code), body: text) }
        return (try? JSONParser.parse(text)) ?? .null
    }

    private func withClient<Value: Sendable>(_ body: (HTTPClient) async throws -> Value) async throws -> Value {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let value = try await body(client)
            try await client.shutdown()
            return value
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
