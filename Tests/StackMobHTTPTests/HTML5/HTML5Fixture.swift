import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StackMobApp
import StackMobCore
import StackMobHTTP
import StackMobTestSupport
import Synchronization
import Testing

/// A live server whose development and production HTML5 sites listen on ports of their own, and
/// a browser-like client for them (no StackMob `Accept`, so a request is a page request).
struct HTML5Fixture: Sendable {
    let api: StackMobClient
    let dataDirectory: String
    let ports: [EnvironmentKind: Int]

    var deployments: HTML5Deployments { HTML5Deployments(dataDirectory: dataDirectory) }

    static func run(configure: @Sendable (inout StackMobConfiguration) -> Void = { _ in }, _ body: @Sendable (HTML5Fixture) async throws -> Void) async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            for kind in EnvironmentKind.allCases {
                configuration.html5[kind].listen = true
                configuration.html5[kind].port = 0
            }
            configure(&configuration)
            let ports = PortsBox()
            let app = try await buildApplication(
                configuration: configuration, logger: TestServer.quietLogger,
                onHTML5ServerRunning: { kind, port in ports.value.withLock { $0[kind] = port } })
            let expected = EnvironmentKind.allCases.filter { configuration.html5.site(for: $0).listen }.count
            try await app.test(.live) { client in
                #expect(try await eventually { ports.value.withLock { $0.count } == expected })
                let fixture = HTML5Fixture(
                    api: StackMobClient(client: client, publicKey: TestServer.developmentPublicKey), dataDirectory: directory,
                    ports: ports.value.withLock { $0 })
                try await body(fixture)
            }
        }
    }

    /// Writes `files` (relative path → content) into a new directory under the data directory.
    func source(_ files: [String: String]) throws -> String {
        try Self.source(files, in: dataDirectory)
    }

    static func source(_ files: [String: String], in parent: String) throws -> String {
        let root = URL(fileURLWithPath: parent).appendingPathComponent("src-\(UUID().uuidString)")
        for (path, content) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: file)
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return root.path
    }

    /// A browser's request to an environment's site, on a new connection.
    func page(
        _ path: String, _ kind: EnvironmentKind = .development, method: HTTPRequest.Method = .get, headers: [String: String] = [:]
    ) async throws -> APIResponse {
        try await Self.request(port: ports[kind]!, path, method: method, headers: headers)
    }

    static func request(
        port: Int, _ path: String, method: HTTPRequest.Method = .get, authority: String? = nil, headers: [String: String] = [:]
    ) async throws -> APIResponse {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { connection async throws in
            var fields = HTTPFields()
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            let response = try await connection.execute(TestClient.Request(path, method: method, authority: authority, headers: fields))
            return APIResponse(status: response.status, headers: response.headers, body: response.body.map { Array($0.readableBytesView) } ?? [])
        }
    }
}

/// The HTML5 listeners' ports, set as each is bound.
final class PortsBox: Sendable {
    let value = Mutex<[EnvironmentKind: Int]>([:])
}

extension HTML5Settings {
    subscript(kind: EnvironmentKind) -> HTML5SiteSettings {
        get { site(for: kind) }
        set {
            switch kind {
            case .development: development = newValue
            case .production: production = newValue
            }
        }
    }
}
