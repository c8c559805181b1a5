import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Push delivery survives restarts (§11)", .tags(.timing))
struct PushDurabilityTests {
    @Test("deliveries pending at shutdown resume after a restart and reach the webhook exactly once")
    func restart() async throws {
        let recorder = PushWebhookRecorder()
        await recorder.setRefusing(true)
        try await PushWebhookStub.app(recorder).test(.live) { hook in
            let url = "http://127.0.0.1:\(try #require(hook.port))/push"
            try await TestServer.withDataDirectory { directory in
                var configuration = TestServer.configuration(dataDirectory: directory)
                PushWebhookStub.configure(&configuration, url: url)
                // Long enough that the first run never retries on its own.
                configuration.push.delivery.initialBackoffSeconds = 60
                configuration.development.oauth1TimestampWindowSeconds = 0
                let clock = ManualClock()
                try await TestServer.run(configuration: configuration, clock: clock) { api in
                    try await PushHost.withClient(port: api.port) { push in
                        for index in 0..<10 {
                            let response = try await push.pushSigned(.put, "/tokens/androidgcm/\(PushFixtures.androidToken(index))", json: ["user": .string("u\(index % 3)")])
                            #expect(response.status == .ok)
                        }
                        for round in 0..<3 {
                            let response = try await push.pushSigned(.post, "/notifications", json: ["payload": ["alert": .string("round \(round)")]])
                            #expect(response.status == .ok)
                        }
                    }
                    // Every delivery was tried once and refused: 30 rows wait for their retry.
                    #expect(try await eventually { await recorder.refusedCount >= 30 })
                    // Let the server record the last refusal before it stops.
                    try await Task.sleep(for: .milliseconds(500))
                }
                #expect(await recorder.accepted.isEmpty)
                await recorder.setRefusing(false)
                clock.advance(by: 61_000)
                try await TestServer.run(configuration: configuration, clock: clock) { _ in
                    #expect(try await eventually { await recorder.accepted.count >= 30 })
                    // Nothing more arrives: every delivery was recorded as done.
                    try await Task.sleep(for: .milliseconds(300))
                }
                let accepted = await recorder.accepted
                #expect(accepted.count == 30)
                #expect(Set(accepted.compactMap { $0["delivery_id"]?.integerValue }).count == 30)
                let byNotification = Dictionary(grouping: accepted) { $0["notification_id"]?.stringValue ?? "" }
                #expect(byNotification.count == 3)
                #expect(byNotification.values.allSatisfy { Set($0.compactMap { $0["token"]?.stringValue }).count == 10 })
                // Each was the second attempt: the refused one, then this one.
                #expect(accepted.allSatisfy { $0["attempt"] == 2 })
                // A third run delivers nothing again.
                try await TestServer.run(configuration: configuration, clock: clock) { _ in
                    try await Task.sleep(for: .milliseconds(300))
                }
                #expect(await recorder.accepted.count == 30)
            }
        }
    }

    @Test("a delivery that keeps failing is given up after max_attempts, with backoff between attempts")
    func givesUp() async throws {
        let recorder = PushWebhookRecorder()
        await recorder.setRefusing(true)
        let clock = ManualClock()
        try await PushWebhookStub.run(
            recorder: recorder, clock: clock,
            configure: {
                $0.push.delivery.maxAttempts = 3
                $0.push.delivery.initialBackoffSeconds = 10
                $0.development.oauth1TimestampWindowSeconds = 0
            }
        ) { _, push in
            #expect(try await push.pushSigned(.post, "/notifications", json: ["payload": ["alert": "x"], "tokens": [["type": "androidgcm", "token": "g"]]]).status == .ok)
            #expect(try await eventually { await recorder.refusedCount == 1 })
            // The stub counts before the server records the failure (and its retry time): let it.
            // (500 ms was too short once, with a load average of 15.)
            try await Task.sleep(for: .seconds(2))
            // Not due before the backoff (10 s), due after it; the next wait doubles (20 s).
            clock.advance(by: 9_000)
            try await Task.sleep(for: .milliseconds(200))
            #expect(await recorder.refusedCount == 1)
            clock.advance(by: 1_000)
            #expect(try await eventually { await recorder.refusedCount == 2 })
            try await Task.sleep(for: .seconds(2))
            clock.advance(by: 19_000)
            try await Task.sleep(for: .milliseconds(200))
            #expect(await recorder.refusedCount == 2)
            clock.advance(by: 1_000)
            #expect(try await eventually { await recorder.refusedCount == 3 })
            // Third attempt was the last one.
            clock.advance(by: 3_600_000)
            try await Task.sleep(for: .milliseconds(300))
            #expect(await recorder.refusedCount == 3)
        }
    }
}
