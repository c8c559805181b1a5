import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The example webhook docs/guide.md points to (`scripts/custom-code-example.py`), run for real:
/// the server forwards a custom-code call to it, and it calls back into the API signed with the
/// private key (OAuth 1.0), as docs/guide.md tells method authors to do. CI installs python3.
@Suite("The example custom-code webhook")
struct ExampleWebhookTests {
    /// The repository is four components above this file
    /// (Tests/StackMobHTTPTests/CustomCode/ExampleWebhookTests.swift).
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("scripts/custom-code-example.py")

    /// A loopback port nobody listens on now, below Linux's ephemeral range (32768 and up):
    /// the suites running in parallel bind port 0 and get ephemeral ports, so none of them can
    /// take this one between the check and the webhook's own bind.
    static func freePort() throws -> Int {
        for _ in 0..<50 {
            let port = Int.random(in: 20_000..<32_000)
            let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(socketFD >= 0)
            defer { close(socketFD) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound { return port }
        }
        throw TestFailure("no free port below the ephemeral range")
    }

    @Test("a call reaches the Python example, which stores an object through the API with the private key")
    func exampleRoundTrip() async throws {
        let python = URL(fileURLWithPath: "/usr/bin/python3")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "python3 is needed (.ci/run installs it)")
        let hookPort = try Self.freePort()
        try await TestServer.run(configure: { $0.development.customCode = [CustomCodeMethod(name: "hello", url: "http://127.0.0.1:\(hookPort)/")] }) { client in
            let hook = try ServerProcess(
                executable: python, arguments: [Self.script.path], directory: FileManager.default.temporaryDirectory.path,
                environment: [
                    "PORT": "\(hookPort)", "STACKMOB_URL": "http://127.0.0.1:\(client.port)",
                    "STACKMOB_PUBLIC_KEY": TestServer.developmentPublicKey, "STACKMOB_PRIVATE_KEY": TestServer.developmentPrivateKey,
                ])
            do {
                try await Self.callExample(client, hook: hook, port: hookPort)
            } catch {
                _ = await hook.terminate()
                throw error
            }
            _ = await hook.terminate()
        }
    }

    static func callExample(_ client: StackMobClient, hook: ServerProcess, port: Int) async throws {
        #expect(try await hook.waitForLog(containing: "listening on 127.0.0.1:\(port)"), "\(hook.log)")
        let reply = try await client.get("/HELLO?name=Ada")
        #expect(reply.status == .ok, "\(hook.log)")
        #expect(reply.object?["msg"] == "hello Ada")
        #expect(reply.object?["verb"] == "GET")
        #expect(reply.object?["user"] == .null)
        // The webhook's own signed call back into the API created the greeting.
        #expect(reply.object?["stored_status"] == 201)
        let greetings = try await client.get("/greeting").array ?? []
        #expect(greetings.compactMap { $0.objectValue?["name"] } == ["Ada"])
    }
}
