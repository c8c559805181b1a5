import Crypto
import Foundation
import Testing

@testable import StackMobCore

@Suite("Configuration: push")
struct ConfigurationPushTests {
    @Test("defaults: push port 8081, log sender, public registration in development only")
    func defaults() {
        let configuration = StackMobConfiguration()
        #expect(configuration.push.listen)
        #expect(configuration.push.port == 8081)
        #expect(configuration.push.delivery.maxAttempts == 10)
        #expect(configuration.development.push.publicRegistration)
        #expect(!configuration.production.push.publicRegistration)
        #expect(PushTokenType.allCases.allSatisfy { configuration.development.push.sender(for: $0) == .log })
    }

    @Test("push keys from a file tree")
    func fromTree() throws {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("apns-\(UUID().uuidString).p8").path
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let tree: JSONValue = [
            "push": ["listen": false, "port": 9000, "delivery": ["max_attempts": 4, "initial_backoff_seconds": 2, "poll_interval_ms": 250]],
            "environments": [
                "production": [
                    "push": [
                        "public_registration": true, "senders": ["ios": "apns", "androidgcm": "webhook"], "webhook_url": "https://bridge.example.com/push",
                        "apns": ["key_file": .string(keyFile), "key_id": "ABC123DEFG", "team_id": "TEAM", "topic": "com.example.app"],
                    ]
                ]
            ],
        ]
        let configuration = try ConfigurationDecoder.decode(try #require(tree.objectValue))
        #expect(!configuration.push.listen)
        #expect(configuration.push.port == 9000)
        #expect(configuration.push.delivery.maxAttempts == 4)
        #expect(configuration.push.delivery.pollIntervalMilliseconds == 250)
        let push = configuration.production.push
        #expect(push.publicRegistration)
        #expect(push.sender(for: .ios) == .apns)
        #expect(push.sender(for: .androidgcm) == .webhook)
        #expect(push.sender(for: .android) == .log)
        #expect(push.apns?.resolvedEndpoint(for: .production) == APNsSettings.productionEndpoint)
        #expect(push.apns?.resolvedEndpoint(for: .development) == APNsSettings.sandboxEndpoint)
    }

    static let invalid: [(push: JSONValue, key: String)] = {
        let apns: JSONValue = ["key_file": "/nonexistent.p8", "key_id": "k", "team_id": "t", "topic": "c"]
        var cases: [(push: JSONValue, key: String)] = []
        cases.append((["senders": ["ios": "webhook"]], "push.webhook_url"))
        cases.append((["senders": ["ios": "apns"]], "push.apns"))
        cases.append((["senders": ["android": "apns"], "apns": apns], "push.senders.android"))
        cases.append((["senders": ["ios": "apns"], "apns": apns], "push.apns.key_file"))
        cases.append((["senders": ["ios": "carrier-pigeon"]], "push.senders.ios"))
        cases.append((["webhook_url": "ftp://x"], "push.webhook_url"))
        cases.append((["apns": ["key_id": "k"]], "push.apns.key_file"))
        cases.append((["unknown": true], "push.unknown"))
        return cases
    }()

    @Test("start-up refuses incomplete senders")
    func validation() throws {
        for (push, key) in Self.invalid {
            try check(push: push, key: key)
        }
    }

    private func check(push: JSONValue, key: String) throws {
        let tree: JSONObject = ["environments": ["development": ["push": push]]]
        do {
            _ = try ConfigurationDecoder.decode(tree)
            Issue.record("accepted \(push)")
        } catch let error as ConfigurationError {
            #expect(error.key.hasSuffix(key), "\(error)")
        }
    }
}
