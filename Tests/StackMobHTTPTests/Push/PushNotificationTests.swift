import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Sending (PROTOCOL §11.2, §11.3): fan-out, broadcast, fake, payload rules, delivered through
/// the webhook sender to a local receiver.
@Suite("Push notifications (§11)")
struct PushNotificationTests {
    /// ann: one iOS and one GCM token; bob: one GCM token; cat: one C2DM token; one iOS token
    /// without a user.
    static func registerFixtures(_ push: StackMobClient) async throws {
        let registrations: [(String, String, String?)] = [
            ("ios", PushFixtures.iosToken(1), "ann"), ("androidGCM", PushFixtures.androidToken(1), "ann"),
            ("androidgcm", PushFixtures.androidToken(2), "bob"), ("android", PushFixtures.androidToken(3), "cat"),
            ("ios", PushFixtures.iosToken(2), nil),
        ]
        for (type, token, user) in registrations {
            let body: JSONValue = user.map { ["user": .string($0)] } ?? [:]
            let response = try await push.pushSigned(.put, "/tokens/\(type)/\(token)", json: body)
            #expect(response.status == .ok, "\(response.text)")
        }
    }

    @Test("fan-out to users (generation 1 and 2) reaches exactly their tokens")
    func users() async throws {
        let recorder = PushWebhookRecorder()
        try await PushWebhookStub.run(recorder: recorder) { _, push in
            try await Self.registerFixtures(push)
            let universal = try await push.pushSigned(.post, "/push_users_universal", json: ["kvPairs": ["alert": "hi"], "userIds": ["ann", "nobody"]], shape: .iOS)
            #expect(universal.status == .ok)
            #expect(universal.object == [:])
            #expect(try await eventually { await recorder.accepted.count == 2 })
            #expect(await recorder.tokens(ofType: "ios") == [PushFixtures.iosToken(1)])
            #expect(await recorder.tokens(ofType: "androidgcm") == [PushFixtures.androidToken(1)])
            let rest = try await push.pushSigned(.post, "/notifications", json: ["payload": ["alert": "yo"], "users": ["bob", "cat"]])
            #expect(rest.status == .ok)
            #expect(try await eventually { await recorder.accepted.count == 4 })
            #expect(await recorder.tokens(ofType: "android") == [PushFixtures.androidToken(3)])
            #expect(await recorder.tokens(ofType: "androidgcm") == [PushFixtures.androidToken(1), PushFixtures.androidToken(2)].sorted())
            // Each delivery names its user and notification.
            let bob = await recorder.accepted.first { $0["token"]?.stringValue == PushFixtures.androidToken(2) }
            #expect(bob?["user"] == "bob")
            #expect(bob?["environment"] == "development")
            #expect(bob?["payload"] == ["alert": "yo"])
        }
    }

    @Test("broadcast (push_broadcast_universal, push_broadcast, /notifications) reaches every token once")
    func broadcast() async throws {
        let recorder = PushWebhookRecorder()
        try await PushWebhookStub.run(recorder: recorder) { _, push in
            try await Self.registerFixtures(push)
            #expect(try await push.pushSigned(.post, "/push_broadcast_universal", json: ["kvPairs": ["alert": "one"]], shape: .iOS).status == .ok)
            #expect(try await eventually { await recorder.accepted.count == 5 })
            #expect(try await push.pushSigned(.post, "/push_broadcast", json: ["kvPairs": ["alert": "two"]]).status == .ok)
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": ["alert": "three"]]).status == .ok)
            #expect(try await eventually { await recorder.accepted.count == 15 })
            let notifications = Set(await recorder.accepted.compactMap { $0["notification_id"]?.stringValue })
            #expect(notifications.count == 3)
            let deliveries = await recorder.accepted.compactMap { $0["delivery_id"]?.integerValue }
            #expect(Set(deliveries).count == 15)
        }
    }

    @Test("to tokens, registered or not; fake validates and delivers nothing")
    func tokensAndFake() async throws {
        let recorder = PushWebhookRecorder()
        try await PushWebhookStub.run(recorder: recorder) { _, push in
            let unregistered = PushFixtures.iosToken(9)
            let fake = try await push.pushSigned(
                .post, "/notifications", json: ["payload": ["alert": "fake"], "tokens": [["type": "ios", "token": .string(unregistered)]], "fake": true])
            #expect(fake.status == .ok)
            // Fake still validates.
            let badFake = try await push.pushSigned(
                .post, "/notifications", json: ["payload": ["alert": "fake"], "tokens": [["type": "ios", "token": "short"]], "fake": true])
            #expect(badFake.status == .badRequest)
            let real = try await push.pushSigned(
                .post, "/push_tokens_universal",
                json: ["tokens": [["type": "iOS", "token": .string(unregistered)], ["type": "androidGCM", "token": "g-x"]], "payload": ["kvPairs": ["alert": "real"]]],
                shape: .iOS)
            #expect(real.status == .ok, "\(real.text)")
            #expect(try await eventually { await recorder.accepted.count == 2 })
            // The fake send came first and left nothing behind.
            try await Task.sleep(for: .milliseconds(200))
            #expect(await recorder.accepted.count == 2)
            #expect(await recorder.accepted.allSatisfy { $0["payload"]?.objectValue?["alert"] == "real" || $0["payload"]?.objectValue?["aps"]?.objectValue?["alert"] == "real" })
        }
    }

    @Test("payload rules: aps mapping for iOS, ≤256 bytes everyone, 257–1024 Android only, >1024 refused")
    func payloadRules() async throws {
        let recorder = PushWebhookRecorder()
        try await PushWebhookStub.run(recorder: recorder) { _, push in
            try await Self.registerFixtures(push)
            let small: JSONValue = ["message": "hello", "badge": "3", "sound": "chime.caf", "custom": "x"]
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": small, "users": ["ann"]]).status == .ok)
            #expect(try await eventually { await recorder.accepted.count == 2 })
            let ios = await recorder.accepted.first { $0["type"] == "ios" }
            #expect(ios?["payload"] == ["aps": ["alert": "hello", "badge": 3, "sound": "chime.caf"], "custom": "x"])
            let android = await recorder.accepted.first { $0["type"] == "androidgcm" }
            #expect(android?["payload"] == small)

            // 257..1024 bytes: ann's Android token only.
            let medium: JSONValue = ["alert": .string(String(repeating: "m", count: 400))]
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": medium, "users": ["ann"]]).status == .ok)
            #expect(try await eventually { await recorder.accepted.count == 3 })
            try await Task.sleep(for: .milliseconds(200))
            #expect(await recorder.accepted.count == 3)
            #expect(await recorder.accepted.last?["type"] == "androidgcm")

            // Exactly 256 bytes still reaches iOS.
            let fill = 256 - JSONWriter.bytes(["alert": ""]).count
            let edge: JSONValue = ["alert": .string(String(repeating: "e", count: fill))]
            #expect(JSONWriter.bytes(edge).count == 256)
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": edge, "users": ["ann"]]).status == .ok)
            #expect(try await eventually { await recorder.accepted.count == 5 })

            // Over 1024 bytes: refused for everyone, nothing queued.
            let large: JSONValue = ["alert": .string(String(repeating: "l", count: 1100))]
            let refused = try await push.pushSigned(.post, "/notifications", json: ["payload": large])
            #expect(refused.status == .badRequest)
            #expect(refused.error?.contains("1024") == true)
            #expect(try await push.pushSigned(.post, "/push_broadcast_universal", json: ["kvPairs": large], shape: .iOS).status == .badRequest)
            // Malformed bodies.
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": "text"]).status == .badRequest)
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": ["badge": "many"]]).status == .badRequest)
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": ["a": "b"], "users": ["ann"], "tokens": []]).status == .badRequest)
            #expect(try await push.pushSigned(.post, "/push_users_universal", json: ["kvPairs": ["a": "b"], "userIds": "ann"]).status == .badRequest)
            try await Task.sleep(for: .milliseconds(200))
            #expect(await recorder.accepted.count == 5)
        }
    }

    @Test("a token the sender reports invalid moves to the expired list (generation 1 and 2 listings, clear)")
    func expiredTokens() async throws {
        let recorder = PushWebhookRecorder()
        await recorder.expire(PushFixtures.androidToken(2))
        try await PushWebhookStub.run(recorder: recorder) { _, push in
            try await Self.registerFixtures(push)
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": ["alert": "hi"], "users": ["bob", "cat"]]).status == .ok)
            #expect(try await eventually { try await push.pushSigned(.get, "/expired_tokens").array?.count == 1 })
            // The two deliveries are separate: cat's may land after bob's expiry is listed.
            #expect(try await eventually { await recorder.accepted.count == 1 })
            let universal = try await push.pushSigned(.post, "/get_expired_tokens_universal", json: ["clear": false])
            let element = try #require(universal.array?.first?.objectValue)
            #expect(element["type"] == "androidgcm")
            #expect(element["token"] == .string(PushFixtures.androidToken(2)))
            #expect(element["user"] == "bob")
            #expect(element["registered_milliseconds"]?.integerValue != nil)
            // The token left the registry.
            #expect(try await push.pushSigned(.get, "/tokens?user=bob").array == [])
            // clear=true answers the list and empties it.
            #expect(try await push.pushSigned(.get, "/expired_tokens?clear=true").array?.count == 1)
            #expect(try await push.pushSigned(.get, "/expired_tokens").array == [])
        }
    }
}

@Suite("Push: the log sender (§11)")
struct PushLogSenderTests {
    @Test("the default sender logs each delivery as a structured line, with a token prefix, never the whole token")
    func logSender() async throws {
        let (logger, store) = CapturingLogHandler.logger()
        let token = PushFixtures.iosToken(8)
        try await TestServer.run(configure: { $0.push.delivery.pollIntervalMilliseconds = 20 }, logger: logger) { api in
            try await PushHost.withClient(port: api.port) { push async throws in
                #expect(try await push.pushSigned(.put, "/tokens/ios/\(token)", json: ["user": "ann"]).status == .ok)
                #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": ["alert": "hello"], "users": ["ann"]]).status == .ok)
                #expect(try await eventually { store.all.contains { $0.message.hasPrefix("Push notification delivered to the log") } })
            }
        }
        let line = try #require(store.all.first { $0.message.hasPrefix("Push notification delivered to the log") })
        #expect(line.metadata["sm.push.type"] == "ios")
        #expect(line.metadata["sm.push.user"] == "ann")
        #expect(line.metadata["sm.push.token_prefix"] == String(token.prefix(8)))
        #expect(line.metadata["sm.push.payload"]?.contains("hello") == true)
        #expect(store.all.allSatisfy { !$0.fullText.contains(token) })
        // The registration's request line names the token by its first 8 characters only.
        #expect(store.all.contains { $0.message == "Request" && $0.metadata["sm.path"] == "/tokens/ios/\(token.prefix(8))…" })
    }
}
