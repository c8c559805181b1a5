import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

/// Requests that once stopped the server with an arithmetic overflow. Each runs
/// against the real binary, which must answer it with a 4xx and stay up: a trap here would take
/// the whole process down, so a spawned process (not the in-process test server) is what can
/// show it.
@Suite("Requests that once crashed the server")
struct CrashRegressionTests {
    static let minimumTimestamp = "-9223372036854775807"

    @Test("Range: objects=0-9223372036854775807 answers the objects")
    func rangeOverflow() async throws {
        try await Self.withServer { client in
            _ = try await client.create("thing", ["name": "a"])
            let page = try await client.get("/thing", headers: ["Range": "objects=0-9223372036854775807"])
            #expect(page.status == .ok)
            #expect(page.array?.count == 1)
            let far = try await client.get("/thing", headers: ["Range": "objects=9223372036854775806-9223372036854775807"])
            #expect(far.status == .ok)
            #expect(far.array == [])
        }
    }

    @Test("an OAuth 1.0 timestamp of -2^63+1 is stale, not a crash")
    func oauthTimestampOverflow() async throws {
        try await Self.withServer { client in
            let header =
                "OAuth oauth_consumer_key=\"\(TestServer.developmentPublicKey)\", oauth_nonce=\"x\", oauth_signature_method=\"HMAC-SHA1\", "
                + "oauth_timestamp=\"\(Self.minimumTimestamp)\", oauth_version=\"1.0\", oauth_signature=\"x\""
            for path in ["/thing", "/listapi", "/push/get_tokens_for_users_universal"] {
                let refused = try await client.get(path, headers: ["Authorization": header])
                #expect(refused.status == .unauthorized, "\(path): \(refused.text)")
            }
        }
    }

    @Test("a MAC timestamp of -2^63+1 with a real access token is stale, not a crash")
    func macTimestampOverflow() async throws {
        try await Self.withServer { client in
            #expect(try await client.post("/user", ["username": "ann", "password": "s3cret"]).status == .created)
            let session = try await client.login([("username", "ann"), ("password", "s3cret")])
            for timestamp in [Self.minimumTimestamp, "9223372036854775807"] {
                let header = "MAC id=\"\(session.accessToken)\",ts=\"\(timestamp)\",nonce=\"n1\",mac=\"x\""
                let refused = try await client.get("/user/loggedInUser", headers: ["Authorization": header])
                #expect(refused.status == .unauthorized, "\(refused.text)")
            }
        }
    }

    @Test("a lastmoddate or createddate of 2^63-1 is refused, so no later write can overflow")
    func timestampFieldOverflow() async throws {
        try await Self.withServer { client in
            #expect(try await client.post("/thing", ["thing_id": "p1", "name": "a"]).status == .created)
            for field in ["lastmoddate", "createddate"] {
                for value in [JSONValue.integer(.max), .integer(-1)] {
                    let update = try await client.put("/thing/p1", [field: value])
                    #expect(update.status == .badRequest, "\(field)=\(value): \(update.text)")
                    #expect(update.error?.contains("from 0 to 253402300799999") == true)
                    let create = try await client.post("/thing", ["name": "b", field: value])
                    #expect(create.status == .badRequest)
                }
            }
            // A date in range is kept (offline sync, D25), and the next write moves past it.
            let synced = try await client.put("/thing/p1", ["lastmoddate": .integer(253_402_300_799_998)])
            #expect(synced.object?["lastmoddate"] == .integer(253_402_300_799_998))
            let next = try await client.put("/thing/p1", ["name": "c"])
            #expect(next.object?["lastmoddate"] == .integer(253_402_300_799_999))
        }
    }

    @Test("replacing a file named name-9223372036854775807 with the same name")
    func fileNameCounterOverflow() async throws {
        try await Self.withServer { client in
            let name = "a-9223372036854775807.png"
            let created = try await client.post("/photo", ["photo_id": "p1", "pic": .string(BinaryFieldTests.envelope([1, 2], filename: name))])
            #expect(created.status == .created)
            let replaced = try await client.put("/photo/p1", ["pic": .string(BinaryFieldTests.envelope([3, 4], filename: name))])
            #expect(replaced.status == .ok, "\(replaced.text)")
            let url = try #require(replaced.object?["pic"]?.stringValue)
            #expect(url.hasSuffix("/a-9223372036854775807-1.png"), "\(url)")
        }
    }

    @Test("a counter summing to infinity is refused")
    func floatCounterOverflow() async throws {
        try await Self.withServer { client in
            #expect(try await client.post("/thing", ["thing_id": "p1", "score": 1e308]).status == .created)
            let refused = try await client.put("/thing/p1", ["score[inc]": 1e308])
            #expect(refused.status == .badRequest)
            #expect(try await client.get("/thing/p1").object?["score"] == .float(1e308))
        }
    }

    /// Runs `body` against a freshly spawned server, then checks the process is still alive and
    /// answering.
    static func withServer(_ body: @escaping @Sendable (StackMobClient) async throws -> Void) async throws {
        try await SpawnedServer.with { client, _ in try await body(client) }
    }
}
