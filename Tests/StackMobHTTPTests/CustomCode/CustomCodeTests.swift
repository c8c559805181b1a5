import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import StackMobCore
import StackMobTestSupport
import Testing

/// Custom code against a real webhook server running in the test process (PROTOCOL §10).
@Suite("Custom code webhooks (PROTOCOL §10, D26)")
struct CustomCodeTests {
    /// `/hook` echoes what the server forwarded (status from `?status=`), `/text` answers plain
    /// text, `/slow` answers after three seconds, `/large` answers 3 MiB of JSON.
    static func webhookApp() -> some ApplicationProtocol {
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let payload = try JSONParser.parse(buffer.readableBytesView)
            let status = payload.objectValue?["params"]?.objectValue?["status"]?.stringValue.flatMap { Int($0) } ?? 200
            var received = payload.objectValue ?? [:]
            received["webhook_method_header"] = request.headers[HTTPField.Name("X-StackMob-Method")!].map(JSONValue.string) ?? .null
            let reply = JSONWriter.bytes(["received": .object(received)], omittingNulls: false)
            return Response(
                status: .init(code: status), headers: [.contentType: "application/json", HTTPField.Name("X-Hook")!: "yes"],
                body: .init(byteBuffer: ByteBuffer(bytes: reply)))
        }
        router.post("/text") { _, _ -> Response in
            Response(status: .created, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "hello")))
        }
        router.post("/large") { _, _ -> Response in
            let reply = JSONWriter.bytes(["text": .string(String(repeating: "x", count: 3 << 20))])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: reply)))
        }
        router.post("/slow") { _, _ -> String in
            try await Task.sleep(for: .seconds(3))
            return "late"
        }
        router.post("/slower") { _, _ -> String in
            try await Task.sleep(for: .seconds(30))
            return "much later"
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Runs the webhook server and the StackMob server configured with its methods.
    static func run(
        clock: any ServerClock = SystemClock(), configure: @escaping @Sendable (inout StackMobConfiguration) -> Void = { _ in },
        logger: Logger = TestServer.quietLogger, _ body: @escaping @Sendable (StackMobClient) async throws -> Void
    ) async throws {
        try await webhookApp().test(.live) { hook in
            let port = try #require(hook.port)
            let base = "http://127.0.0.1:\(port)"
            try await TestServer.run(
                configure: { configuration in
                    configuration.development.customCode = [
                        CustomCodeMethod(name: "sendMail", url: "\(base)/hook"),
                        CustomCodeMethod(name: "greeting", url: "\(base)/text"),
                        CustomCodeMethod(name: "large", url: "\(base)/large"),
                        CustomCodeMethod(name: "slow", url: "\(base)/slow"),
                        CustomCodeMethod(name: "slower", url: "\(base)/slower"),
                        CustomCodeMethod(name: "gone", url: "http://127.0.0.1:1/hook"),
                    ]
                    configure(&configuration)
                }, clock: clock, logger: logger, body)
        }
    }

    @Test("every verb reaches the webhook with its parameters and raw body; status, headers and body come back")
    func verbsParametersBody() async throws {
        try await Self.run { client in
            for verb in [HTTPRequest.Method.get, .post, .put, .delete] {
                let sendsBody = verb == .post || verb == .put
                let response = try await client.request(
                    verb, "/sendMail?to=a%40b.c&n=1", rawBody: sendsBody ? "plain text, not JSON" : nil, headers: ["X-Custom": "x"])
                #expect(response.status == .ok)
                #expect(response.header("X-Hook") == "yes")
                let received = try #require(response.object?["received"]?.objectValue)
                #expect(received["verb"] == .string(verb.rawValue))
                #expect(received["method"] == "sendMail")
                #expect(received["webhook_method_header"] == "sendMail")
                #expect(received["params"] == ["to": "a@b.c", "n": "1"])
                #expect(received["body"] == .string(sendsBody ? "plain text, not JSON" : ""))
                #expect(received["user"] == .null)
                #expect(received["caller"] == "anonymous")
                #expect(received["environment"] == "development")
                let headers = try #require(received["headers"]?.objectValue)
                // Header names arrive lower-case.
                #expect(headers["accept"] != nil)
                #expect(headers["x-custom"] == nil)
            }
            let teapot = try await client.post("/sendMail?status=418", ["a": 1])
            #expect(teapot.status.code == 418)
            #expect(teapot.object?["received"]?.objectValue?["body"] == #"{"a":1}"#)
            let text = try await client.get("/greeting")
            #expect(text.status == .created)
            #expect(text.header("Content-Type") == "text/plain")
            #expect(text.text == "hello")
        }
    }

    @Test("method names match case-insensitively")
    func mixedCase() async throws {
        try await Self.run { client in
            for name in ["sendMail", "SENDMAIL", "sendmail", "SendMail"] {
                let response = try await client.get("/\(name)")
                #expect(response.status == .ok)
                #expect(response.object?["received"]?.objectValue?["method"] == "sendMail")
            }
        }
    }

    @Test("a MAC-signed call gives the webhook the logged-in user")
    func loggedInUser() async throws {
        let clock = ManualClock()
        try await Self.run(clock: clock) { client in
            #expect(try await client.post("/user", ["username": "alice", "password": "secret-1"]).status == .created)
            let session = try await client.login([("username", "alice"), ("password", "secret-1")])
            let response = try await client.signed(.post, "/sendMail?x=1", session: session, ts: clock.nowMilliseconds() / 1000, json: ["a": 1])
            #expect(response.status == .ok)
            let received = try #require(response.object?["received"]?.objectValue)
            #expect(received["user"] == ["schema": "user", "id": "alice"])
            #expect(received["caller"] == "user")
            // The credentials themselves are not forwarded.
            #expect(received["headers"]?.objectValue?["authorization"] == nil)
        }
    }

    @Test("a webhook slower than the timeout → 504; an unreachable one → 503 with Retry-After")
    func timeoutAndUnreachable() async throws {
        try await Self.run(configure: { $0.customCodeTimeoutSeconds = 1 }) { client in
            let slow = try await client.get("/slow")
            #expect(slow.status == .gatewayTimeout)
            #expect(slow.error == "Custom code method 'slow' did not answer within 1 seconds")
        }
        // A refused connection is told apart from a timeout; under a limit of a second, a loaded
        // machine could let the limit pass first.
        try await Self.run(configure: { $0.customCodeTimeoutSeconds = 10 }) { client in
            let gone = try await client.post("/gone", ["a": 1])
            #expect(gone.status == .serviceUnavailable)
            #expect(gone.header("Retry-After") == "5")
            #expect(gone.error?.contains("unavailable") == true)
        }
    }

    @Test("a request longer than limits.request_timeout_seconds is stopped with 504")
    func requestTimeout() async throws {
        // The custom-code limit sits above the request limit only here, to make a slow request.
        let logs = CapturingLogHandler.Store()
        try await Self.run(configure: { $0.requestTimeoutSeconds = 5; $0.customCodeTimeoutSeconds = 60 }, logger: Logger(label: "t") { _ in
            CapturingLogHandler(store: logs)
        }) { client in
            // The webhook answers after 30 s: this answer can only come from the 5 s request limit.
            let slow = try await client.get("/slower")
            #expect(slow.status == .gatewayTimeout)
            #expect(slow.error == "The request took longer than 5 seconds: the server stopped it")
            #expect(slow.header("Retry-After") == nil)
            #expect(logs.all.contains { $0.message == "Request timed out" && $0.metadata["sm.path"] == "/slower" })
            // Fast requests are unaffected.
            #expect(try await client.get("/greeting").status == .created)
        }
    }

    @Test("an unknown name is 404 in every environment (UnknownNameTests has the rest); other environments' methods are unknown")
    func unknownMethod() async throws {
        try await Self.run { client in
            let production = try await client.production().get("/nonexistent")
            #expect(production.status == .notFound)
            #expect(production.error == "No custom code method or schema named 'nonexistent'")
            // Methods are per environment: development's sendMail is not production's.
            #expect(try await client.production().get("/sendMail").status == .notFound)
            // Existing schemas still answer in production.
            #expect(try await client.production().get("/user").status == .ok)
            let development = try await client.get("/nonexistent")
            #expect(development.status == .notFound)
            #expect(development.error == "No custom code method or schema named 'nonexistent'")
            // Custom code needs the API key like any call.
            #expect(try await client.withoutKey.get("/sendMail").status == .unauthorized)
        }
    }
}
