import Foundation
import HummingbirdTesting
import StackMobApp
import StackMobCore
import StackMobHTTP
import StackMobTestSupport
import Synchronization
import Testing

/// The push listener's port, set once it is bound.
final class PortBox: Sendable {
    let value = Mutex<Int?>(nil)
}

/// The token registry over HTTP (PROTOCOL §11.1–§11.3, D12), OAuth 1.0-signed like the SDKs.
@Suite("Push token registry (§11)")
struct PushRegistrationTests {
    static let ios1 = PushFixtures.iosToken(1)
    static let ios2 = PushFixtures.iosToken(2)

    @Test("generation 1: register, list with the fixed shape, overwrite conflicts, re-link, remove")
    func universal() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { $0.development.oauth1TimestampWindowSeconds = 0 }, clock: clock) { api in
            try await PushHost.withClient(port: api.port) { push in
                let register = try await push.pushSigned(
                    .post, "/register_device_token_universal", json: ["userId": "ann", "token": ["token": .string(Self.ios1), "type": "iOS"]], shape: .iOS)
                #expect(register.status == .ok, "\(register.text)")
                #expect(register.object == [:])
                // Again with overwrite false: refused (the iOS SDK sends overwrite explicitly).
                let conflict = try await push.pushSigned(
                    .post, "/register_device_token_universal",
                    json: ["userId": "bob", "token": ["token": .string(Self.ios1), "type": "ios"], "overwrite": false], shape: .iOS)
                #expect(conflict.status == .conflict)
                #expect(conflict.error?.contains("already registered") == true)
                let listed = try await push.pushSigned(.get, "/get_tokens_for_users_universal?userIds=ann,bob", shape: .iOS)
                #expect(listed.status == .ok)
                #expect(
                    listed.object == [
                        "tokens": ["ann": [["token": .string(Self.ios1), "type": "ios", "registered_milliseconds": .integer(clock.nowMilliseconds())]], "bob": []]
                    ])
                // Overwrite true (and absent, legacy Java) re-links to the new user.
                clock.advance(by: 5_000)
                let relinked = try await push.pushSigned(
                    .post, "/register_device_token_universal",
                    json: ["userId": "bob", "token": ["token": .string(Self.ios1.uppercased()), "type": "ios"], "overwrite": true], shape: .iOS)
                #expect(relinked.status == .ok)
                let legacy = try await push.pushSigned(
                    .post, "/register_device_token_universal", json: ["userId": "cat", "token": ["token": "c2dm-id", "type": "android"]])
                #expect(legacy.status == .ok)
                let after = try await push.pushSigned(.get, "/get_tokens_for_users_universal?userIds=ann,bob,cat", shape: .iOS).object
                #expect(after?["tokens"]?.objectValue?["ann"] == [])
                #expect(after?["tokens"]?.objectValue?["bob"]?.arrayValue?.first?.objectValue?["registered_milliseconds"] == .integer(clock.nowMilliseconds()))
                #expect(after?["tokens"]?.objectValue?["cat"]?.arrayValue?.first?.objectValue?["type"] == "android")
                // Both removal paths answer {} and remove.
                #expect(try await push.pushSigned(.post, "/remove_token_universal", json: ["token": .string(Self.ios1), "type": "ios"], shape: .iOS).object == [:])
                #expect(try await push.pushSigned(.post, "/remove_push_token_universal", json: ["token": "c2dm-id", "type": "android"]).object == [:])
                let empty = try await push.pushSigned(.get, "/get_tokens_for_users_universal?userIds=bob,cat").object
                #expect(empty == ["tokens": ["bob": [], "cat": []]])
            }
        }
    }

    @Test("generation 2: POST conflicts, PUT overwrites, type casing, listing, DELETE")
    func rest() async throws {
        try await TestServer.run { api in
            try await PushHost.withClient(port: api.port) { push in
                // The Java SDK sends androidGCM: stored and listed lower-case.
                #expect(try await push.pushSigned(.post, "/tokens/androidGCM/gcm-1", json: ["user": "ann"]).status == .ok)
                let again = try await push.pushSigned(.post, "/tokens/ANDROIDGCM/gcm-1", json: ["user": "bob"])
                #expect(again.status == .conflict)
                #expect(try await push.pushSigned(.put, "/tokens/androidgcm/gcm-1", json: ["user": "bob"]).status == .ok)
                #expect(try await push.pushSigned(.put, "/tokens/iOS/\(Self.ios2)", json: ["user": "bob"]).status == .ok)
                // The last segment is form-encoded by the Java SDK.
                #expect(try await push.pushSigned(.put, "/tokens/android/a%3Ab%2Bc", json: ["user": "ann"]).status == .ok)
                let listing = try await push.pushSigned(.get, "/tokens?user=bob&user=ann")
                #expect(listing.status == .ok)
                let listed = listing.array?.compactMap { $0.objectValue }
                let elements = try #require(listed)
                #expect(Set(elements.map { "\($0["type"]!.stringValue!)/\($0["token"]!.stringValue!)/\($0["user"]!.stringValue!)" })
                    == ["androidgcm/gcm-1/bob", "ios/\(Self.ios2)/bob", "android/a:b+c/ann"])
                #expect(elements.allSatisfy { $0["registered_milliseconds"]?.integerValue != nil })
                #expect(try await push.pushSigned(.delete, "/tokens/androidGCM/gcm-1").object == [:])
                #expect(try await push.pushSigned(.get, "/tokens?user=bob").array?.count == 1)
                // Removing an unknown token succeeds.
                #expect(try await push.pushSigned(.delete, "/tokens/androidgcm/never").status == .ok)
            }
        }
    }

    @Test("bad tokens and types are refused with a JSON error", arguments: [
        ("/tokens/ios/abc", "Invalid token"),
        ("/tokens/ios/\(String(repeating: "g", count: 64))", "Invalid token"),
        ("/tokens/ios/\(PushFixtures.iosToken(3))00", "Invalid token"),
        ("/tokens/windows/abc", "Unknown token type"),
    ])
    func badTokens(path: String, message: String) async throws {
        try await TestServer.run { api in
            try await PushHost.withClient(port: api.port) { push in
                let response = try await push.pushSigned(.put, path, json: ["user": "ann"])
                #expect(response.status == .badRequest)
                #expect(response.error?.hasPrefix(message) == true, "\(response.text)")
                let universal = try await push.pushSigned(
                    .post, "/register_device_token_universal", json: ["userId": "ann", "token": ["token": "short", "type": "ios"]], shape: .iOS)
                #expect(universal.status == .badRequest)
            }
        }
    }

    @Test("access (D12): public key registers in development only; sending and listing need the private key")
    func access() async throws {
        try await TestServer.run { api in
            try await PushHost.withClient(port: api.port) { push in
                let token = PushFixtures.iosToken(4)
                // Public key alone, development: register and remove allowed.
                #expect(try await push.put("/tokens/ios/\(token)", ["user": "ann"]).status == .ok)
                #expect(try await push.post("/register_device_token_universal", ["userId": "ann", "token": ["token": "g1", "type": "androidgcm"]]).status == .ok)
                #expect(try await push.delete("/tokens/androidgcm/g1").status == .ok)
                // Sending, broadcasting, listing: 401 with a JSON error.
                let denied: [APIResponse] = [
                    try await push.post("/notifications", ["payload": ["alert": "hi"]]),
                    try await push.post("/push_broadcast_universal", ["kvPairs": ["alert": "hi"]]),
                    try await push.post("/push_users_universal", ["kvPairs": ["alert": "hi"], "userIds": ["ann"]]),
                    try await push.get("/tokens?user=ann"),
                    try await push.get("/get_tokens_for_users_universal?userIds=ann"),
                    try await push.get("/expired_tokens"),
                    try await push.post("/get_expired_tokens_universal", ["clear": false]),
                ]
                for response in denied {
                    #expect(response.status == .unauthorized)
                    #expect(response.error?.contains("private key") == true)
                    // Nothing about tokens leaks into a refusal.
                    #expect(!response.text.contains(token))
                }
                // No credentials at all.
                #expect(try await push.withoutKey.put("/tokens/ios/\(token)", ["user": "ann"]).status == .unauthorized)
                // A wrong private key.
                let forged = try await push.oauth1(.get, "/tokens?user=ann", shape: .java, endpoint: PushHost.endpoint, secret: "not-the-private-key-at-all")
                #expect(forged.status == .unauthorized)
                // Production refuses public-key registration by default.
                let production = push.production()
                let refused = try await production.put("/tokens/ios/\(token)", ["user": "ann"])
                #expect(refused.status == .unauthorized)
                #expect(refused.error?.contains("disabled") == true)
                #expect(try await production.delete("/tokens/ios/\(token)").status == .unauthorized)
                #expect(try await production.pushSigned(.put, "/tokens/ios/\(token)", json: ["user": "ann"]).status == .ok)
                // The environments keep separate registries.
                #expect(try await production.pushSigned(.get, "/tokens?user=ann").array?.count == 1)
                #expect(try await push.pushSigned(.get, "/tokens?user=ann").array?.count == 1)
            }
        }
    }

    @Test("production can allow public-key registration; development can forbid it")
    func registrationSetting() async throws {
        try await TestServer.run(configure: {
            $0.production.push.publicRegistration = true
            $0.development.push.publicRegistration = false
        }) { api in
            try await PushHost.withClient(port: api.port) { push in
                let token = PushFixtures.iosToken(5)
                let publicProduction = try await push.production().put("/tokens/ios/\(token)", ["user": "ann"])
                #expect(publicProduction.status == .ok)
                let publicDevelopment = try await push.put("/tokens/ios/\(token)", ["user": "ann"])
                #expect(publicDevelopment.status == .unauthorized)
                let signed = try await push.pushSigned(.put, "/tokens/ios/\(token)", json: ["user": "ann"])
                #expect(signed.status == .ok)
            }
        }
    }

    @Test("deleting a user object removes its tokens")
    func userDeletion() async throws {
        try await TestServer.run { api in
            _ = try await api.create("user", ["username": "ann", "password": "pw"])
            _ = try await api.create("user", ["username": "bob", "password": "pw"])
            try await PushHost.withClient(port: api.port) { push in
                #expect(try await push.pushSigned(.put, "/tokens/ios/\(PushFixtures.iosToken(6))", json: ["user": "ann"]).status == .ok)
                #expect(try await push.pushSigned(.put, "/tokens/androidgcm/g-ann", json: ["user": "ann"]).status == .ok)
                #expect(try await push.pushSigned(.put, "/tokens/androidgcm/g-bob", json: ["user": "bob"]).status == .ok)
                // A non-user schema object with the same id does not touch tokens.
                _ = try await api.create("todo", ["todo_id": "bob"])
                #expect(try await api.delete("/todo/bob").status == .ok)
                #expect(try await api.delete("/user/ann").status == .ok)
                #expect(try await push.pushSigned(.get, "/tokens?user=ann").array == [])
                #expect(try await push.pushSigned(.get, "/tokens?user=bob").array?.count == 1)
                // Delete by query too.
                #expect(try await api.delete("/user?username=bob").status == .ok)
                #expect(try await push.pushSigned(.get, "/tokens?user=bob").array == [])
                // And a cascade delete through a relation to the user schema.
                _ = try await api.create("user", ["username": "cal", "password": "pw"])
                #expect(try await push.pushSigned(.put, "/tokens/androidgcm/g-cal", json: ["user": "cal"]).status == .ok)
                let team = try await api.post("/team", ["team_id": "t1", "members": ["cal"]], headers: ["X-StackMob-Relations": "members=user"])
                #expect(team.status == .created, "\(team.text)")
                #expect(try await api.delete("/team/t1/members/cal", headers: ["X-StackMob-CascadeDelete": "true"]).status == .ok)
                #expect(try await api.get("/user/cal").status == .notFound)
                #expect(try await push.pushSigned(.get, "/tokens?user=cal").array == [])
            }
        }
    }

    @Test("the push host: own port, Host push.* on the API port, /push/ prefix (legacy Java 0.1)")
    func hosts() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            let pushPort = PortBox()
            let app = try await buildApplication(configuration: configuration, logger: TestServer.quietLogger) { port in
                pushPort.value.withLock { $0 = port }
            }
            try await app.test(.live) { client in
                let api = StackMobClient(client: client, publicKey: TestServer.developmentPublicKey)
                #expect(try await eventually { pushPort.value.withLock { $0 } != nil })
                let port = try #require(pushPort.value.withLock { $0 })
                #expect(port != api.port)
                // The push port serves push routes whatever the Host.
                try await TestClient.withClient(host: "127.0.0.1", port: port) { connection async throws in
                    let push = StackMobClient(connection: connection, port: port, publicKey: TestServer.developmentPublicKey, authority: "localhost")
                    #expect(try await push.oauth1(.put, "/tokens/androidgcm/g1", shape: .java, json: ["user": "ann"]).status == .ok)
                    #expect(try await push.oauth1(.get, "/tokens?user=ann", shape: .java).array?.count == 1)
                    // ...and nothing else: no datastore there.
                    #expect(try await push.get("/todo").status == .notFound)
                }
                // On the API port, Host push.* reaches the same registry.
                try await PushHost.withClient(port: api.port) { push async throws in
                    #expect(try await push.pushSigned(.get, "/tokens?user=ann").array?.count == 1)
                }
                // Without the push host, /tokens is an ordinary schema name on the API: unknown here (§10.4).
                #expect(try await api.get("/tokens").error == "No custom code method or schema named 'tokens'")
                // Legacy Java 0.1: /push/<universal endpoint> on the API host.
                let legacy = try await api.oauth1(
                    .post, "/push/register_device_token_universal", shape: .java, json: ["userId": "bob", "token": ["token": "c2dm", "type": "android"]])
                #expect(legacy.status == .ok, "\(legacy.text)")
                #expect(try await api.oauth1(.get, "/push/get_tokens_for_users_universal?userIds=bob", shape: .java).object?["tokens"]?.objectValue?["bob"]?.arrayValue?.count == 1)
            }
        }
    }
}
