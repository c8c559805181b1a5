import Foundation
import Hummingbird
import Logging
import HummingbirdTesting
import NIOCore
import StackMobCore
import StackMobTestSupport
import Testing

/// A local receiver for the `webhook` push sender: records every delivery it accepts and answers
/// 410 for tokens marked expired, 503 to everything while `refusing`.
actor PushWebhookRecorder {
    private(set) var accepted: [JSONObject] = []
    private(set) var refusedCount = 0
    var refusing = false
    var expiredTokens: Set<String> = []

    func setRefusing(_ value: Bool) { refusing = value }
    func expire(_ token: String) { expiredTokens.insert(token) }

    func receive(_ delivery: JSONObject) -> Int {
        if refusing {
            refusedCount += 1
            return 503
        }
        if let token = delivery["token"]?.stringValue, expiredTokens.contains(token) { return 410 }
        accepted.append(delivery)
        return 200
    }

    /// Accepted deliveries for a token type, by token.
    func tokens(ofType type: String) -> [String] {
        accepted.filter { $0["type"]?.stringValue == type }.compactMap { $0["token"]?.stringValue }.sorted()
    }
}

enum PushWebhookStub {
    static func app(_ recorder: PushWebhookRecorder) -> some ApplicationProtocol {
        let router = Router()
        router.post("/push") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let delivery = try JSONParser.parse(buffer.readableBytesView).objectValue ?? [:]
            let status = await recorder.receive(delivery)
            return Response(status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Every token type delivered through the webhook, polled every 20 ms, retried after 1 s.
    static func configure(_ configuration: inout StackMobConfiguration, url: String) {
        for kind in EnvironmentKind.allCases {
            var push = configuration.settings(for: kind).push
            push.webhookURL = url
            for type in PushTokenType.allCases { push.senders[type] = .webhook }
            switch kind {
            case .development: configuration.development.push = push
            case .production: configuration.production.push = push
            }
        }
        configuration.push.delivery.pollIntervalMilliseconds = 20
        configuration.push.delivery.initialBackoffSeconds = 1
    }

    /// Runs the stub and a server delivering to it; `body` gets a client on the push host.
    static func run(
        recorder: PushWebhookRecorder, clock: any ServerClock = SystemClock(), logger: Logger = TestServer.quietLogger,
        configure extra: @escaping @Sendable (inout StackMobConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (StackMobClient, StackMobClient) async throws -> Void
    ) async throws {
        try await app(recorder).test(.live) { hook in
            let url = "http://127.0.0.1:\(try #require(hook.port))/push"
            try await TestServer.run(configure: { configuration in
                Self.configure(&configuration, url: url)
                extra(&configuration)
            }, clock: clock, logger: logger) { api in
                try await PushHost.withClient(port: api.port) { push in
                    try await body(api, push)
                }
            }
        }
    }
}

/// Waits until `condition` holds, for at most `seconds`.
func eventually(seconds: Double = 10, _ condition: @Sendable () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// Test tokens: iOS tokens are 64 hex characters.
enum PushFixtures {
    static func iosToken(_ n: Int) -> String { String(repeating: String(format: "%02x", n), count: 32) }
    static func androidToken(_ n: Int) -> String { "APA91b-android-token-\(n)" }
}
