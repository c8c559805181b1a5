import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StackMobCore
import Synchronization

/// A client that sends requests the way the StackMob SDKs do: `Accept` with the API version and
/// the public key header; a user's MAC signature is added where a test logs in (PROTOCOL §3.2).
public struct StackMobClient: Sendable {
    public typealias Transport = @Sendable (TestClient.Request) async throws -> APIResponse

    private let transport: Transport
    /// The port of the live server.
    public let port: Int
    public var publicKey: String?
    public var version = 0

    /// A client on the test framework's connection.
    public init(client: any TestClientProtocol, publicKey: String?) {
        self.port = client.port ?? 0
        self.publicKey = publicKey
        transport = { request in
            let response = try await client.executeRequest(
                uri: request.head.path ?? "/", method: request.head.method, headers: request.head.headerFields, body: request.body)
            return APIResponse(status: response.status, headers: response.headers, body: Array(response.body.readableBytesView))
        }
    }

    /// A client on a connection of its own, for concurrency tests; `authority` is the `Host` it
    /// sends (the push host tests send `push.localhost`).
    public init(connection: TestClient, port: Int, publicKey: String?, authority: String? = nil) {
        self.port = port
        self.publicKey = publicKey
        transport = { request in
            var request = request
            if let authority { request.head.authority = authority }
            let response = try await connection.execute(request)
            return APIResponse(status: response.status, headers: response.headers, body: response.body.map { Array($0.readableBytesView) } ?? [])
        }
    }

    /// The same client without the API key header.
    public var withoutKey: StackMobClient {
        var copy = self
        copy.publicKey = nil
        return copy
    }

    /// The same client speaking to the production environment (API version 1).
    public func production(version: Int = 1) -> StackMobClient {
        var copy = self
        copy.version = version
        copy.publicKey = TestServer.productionPublicKey
        return copy
    }

    public func request(
        _ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, rawBody: String? = nil, bytes: [UInt8]? = nil,
        headers extra: [String: String] = [:]
    ) async throws -> APIResponse {
        var headers = HTTPFields()
        headers[.accept] = "application/vnd.stackmob+json; version=\(version)"
        if let publicKey { headers[HTTPField.Name("X-StackMob-API-Key")!] = publicKey }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: JSONWriter.bytes(json, omittingNulls: false))
        } else if let rawBody {
            body = ByteBuffer(string: rawBody)
        } else if let bytes {
            body = ByteBuffer(bytes: bytes)
        }
        for (name, value) in extra {
            let field = HTTPField.Name(name)!
            headers[field] = value
        }
        return try await transport(TestClient.Request(path, method: method, headers: headers, body: body))
    }

    public func get(_ path: String, headers: [String: String] = [:]) async throws -> APIResponse {
        try await request(.get, path, headers: headers)
    }

    public func post(_ path: String, _ json: JSONValue, headers: [String: String] = [:]) async throws -> APIResponse {
        try await request(.post, path, json: json, headers: headers)
    }

    public func put(_ path: String, _ json: JSONValue, headers: [String: String] = [:]) async throws -> APIResponse {
        try await request(.put, path, json: json, headers: headers)
    }

    public func delete(_ path: String, headers: [String: String] = [:]) async throws -> APIResponse {
        try await request(.delete, path, headers: headers)
    }

    public func head(_ path: String, headers: [String: String] = [:]) async throws -> APIResponse {
        try await request(.head, path, headers: headers)
    }

    /// Creates an object and returns it as stored; fails the test unless the server said 201.
    public func create(_ schema: String, _ object: JSONObject) async throws -> JSONObject {
        let response = try await post("/\(schema)", .object(object))
        guard response.status == .created, let created = response.json?.objectValue else {
            throw TestFailure("create in \(schema) answered \(response.status.code): \(response.text)")
        }
        return created
    }
}

public struct APIResponse: Sendable {
    public let status: HTTPResponse.Status
    public let headers: HTTPFields
    public let body: [UInt8]

    public init(status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue? { try? JSONParser.parse(body) }
    public var object: JSONObject? { json?.objectValue }
    public var array: [JSONValue]? { json?.arrayValue }
    /// The `error` text of a StackMob error body.
    public var error: String? { object?["error"]?.stringValue }

    public func header(_ name: String) -> String? {
        headers[HTTPField.Name(name)!]
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A clock the test moves by hand.
public final class ManualClock: ServerClock {
    private let now: Mutex<Int64>

    public init(_ start: Int64 = 1_700_000_000_000) { now = Mutex(start) }

    public func nowMilliseconds() -> Int64 { now.withLock { $0 } }

    public func advance(by milliseconds: Int64) { now.withLock { $0 += milliseconds } }
}
