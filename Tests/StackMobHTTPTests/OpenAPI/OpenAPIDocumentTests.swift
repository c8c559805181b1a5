import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StackMobApp
import StackMobCore
import StackMobHTTP
import StackMobTestSupport
import Testing

/// `GET /openapi.json` against the routes the server really registers (`RouteLog`, written by
/// the route builders as they register): nothing routed goes undocumented, and nothing documented
/// is answered "No such endpoint".
@Suite struct OpenAPIDocumentTests {
    /// One documented operation.
    struct Operation: Sendable, CustomStringConvertible {
        let route: RegisteredRoute
        /// The document's `x-stackmob-host`: `push` (the push host only), `api+push` (both).
        let hostMarker: String?
        var description: String { route.description }
    }

    @Test func documentIsOpenAPI31AndMatchesTheRegisteredRoutes() async throws {
        try await Self.run { client, routes in
            // (a) Served without credentials, valid JSON, OpenAPI 3.1.
            let response = try await client.withoutKey.request(.get, "/openapi.json", headers: ["Accept": "application/json"])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let document = try #require(response.object, "the document is not a JSON object")
            let version = try #require(document["openapi"]?.stringValue)
            #expect(version.hasPrefix("3.1."))
            #expect(document["info"]?.objectValue?["title"]?.stringValue != nil)

            // (b) The documented operations are exactly the registered routes.
            let operations = try Self.operations(document)
            let documented = Set(operations.map(\.route))
            let registered = Set(routes)
            #expect(!registered.isEmpty)
            for route in registered.subtracting(documented).sorted(by: { $0.description < $1.description }) {
                Issue.record("routed but not in openapi.json: \(route)")
            }
            for route in documented.subtracting(registered).sorted(by: { $0.description < $1.description }) {
                Issue.record("in openapi.json but not routed: \(route)")
            }
            // Every path parameter of a path is declared.
            let paths = try #require(document["paths"]?.objectValue)
            for (path, item) in paths {
                let declared = Set((item.objectValue?["parameters"]?.arrayValue ?? []).compactMap { $0.objectValue?["name"]?.stringValue })
                for name in Self.templateNames(path) {
                    #expect(declared.contains(name), "\(path) does not declare its path parameter \(name)")
                }
            }
        }
    }

    /// Each documented StackMob API and push operation, sent for real, is answered by a route:
    /// never the router's "No such endpoint". (The admin API and console are left to the route
    /// comparison above: their authentication answers before routing, so a probe without a
    /// session cannot tell a route from none.)
    @Test func everyDocumentedAPIOperationIsRouted() async throws {
        try await Self.run { client, _ in
            let document = try #require(try await client.withoutKey.get("/openapi.json").object)
            // An existing user object, so that HEAD (no body to read) answers 200 where routed.
            #expect(try await client.post("/user", ["username": "nobody", "password": "secret"]).status == .created)
            let operations = try Self.operations(document).filter { operation in
                // The files route answers a missing file exactly like a missing route, on
                // purpose (a URL tells nothing); BinaryFieldTests cover it with real files.
                !operation.route.path.hasPrefix("/_admin") && !operation.route.path.hasPrefix("/_files")
            }
            // Deletes last: they would remove the object the HEAD requests look for.
            let ordered = operations.sorted { ($0.route.method == "DELETE" ? 1 : 0) < ($1.route.method == "DELETE" ? 1 : 0) }
            for operation in ordered {
                let path = Self.concrete(operation.route.path)
                let method = HTTPRequest.Method(operation.route.method)!
                let response: APIResponse
                if operation.hostMarker == "push" {
                    response = try await PushHost.withClient(port: client.port) { push in try await push.request(method, path) }
                } else if ["/health", "/ready", "/metrics"].contains(path) {
                    response = try await client.withoutKey.request(method, path)
                } else {
                    response = try await client.request(method, path)
                }
                #expect(response.status != .methodNotAllowed, "\(operation): 405")
                // The router's own 404 (`RequestError.routeNotFound`); a handler's 404 means routed.
                let error = response.object?["error"]?.stringValue ?? ""
                #expect(!error.hasPrefix("No such endpoint"), "\(operation): \(response.text)")
                if method == .head {
                    #expect(response.status != .notFound, "\(operation): HEAD answered 404")
                }
            }
        }
    }

    /// Starts the real application on a fresh directory, keeping its route log.
    static func run(_ body: @Sendable (StackMobClient, [RegisteredRoute]) async throws -> Void) async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = {
                var configuration = TestServer.configuration(dataDirectory: directory)
                // CI mode, where every documented route is registered (`reset` only exists there).
                configuration.ephemeral = true
                return configuration
            }()
            let log = RouteLog()
            let app = try await buildApplication(configuration: configuration, logger: TestServer.quietLogger, routeLog: log)
            try await app.test(.live) { client in
                try await body(StackMobClient(client: client, publicKey: configuration.development.publicKey), log.routes)
            }
        }
    }

    static let methods = ["get", "put", "post", "delete", "head", "patch", "options", "trace"]

    static func operations(_ document: JSONObject) throws -> [Operation] {
        let paths = try #require(document["paths"]?.objectValue)
        return paths.flatMap { path, item -> [Operation] in
            let item = item.objectValue ?? [:]
            let marker = item["x-stackmob-host"]?.stringValue
            return methods.filter { item[$0] != nil }.map { method in
                // The push router holds both the push host's paths and the legacy `/push/…` ones.
                Operation(route: RegisteredRoute(host: marker == nil ? .api : .push, method: method.uppercased(), path: path), hostMarker: marker)
            }
        }
    }

    static func templateNames(_ path: String) -> [String] {
        path.split(separator: "/").filter { $0.hasPrefix("{") && $0.hasSuffix("}") }.map { String($0.dropFirst().dropLast()) }
    }

    /// A request path for a template: the default user schema and plausible values.
    static func concrete(_ template: String) -> String {
        let values = [
            "schema": "user", "id": "nobody", "field": "friends", "values": "a", "type": "ios", "token": "0a0b0c",
            "environment": "development", "filename": "x.txt", "env": "development",
        ]
        return "/" + template.split(separator: "/").map { segment in
            guard segment.hasPrefix("{") else { return String(segment) }
            return values[String(segment.dropFirst().dropLast())] ?? "x"
        }.joined(separator: "/")
    }
}
