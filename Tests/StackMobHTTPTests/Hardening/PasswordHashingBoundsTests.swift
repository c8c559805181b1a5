import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Password hashing is slow on purpose, so its cost must not be the client's to choose: a cap on
/// the passwords one request carries, and a request past its deadline stops hashing.
@Suite("Password hashing is bounded per request", .tags(.timing))
struct PasswordHashingBoundsTests {
    static func users(_ count: Int, prefix: String = "u") -> JSONValue {
        .array((0..<count).map { .object(["username": .string("\(prefix)\($0)"), "password": "pw"]) })
    }

    @Test("a bulk sign-up or a related graph past the cap is refused before anything is hashed or written")
    func capped() async throws {
        try await TestServer.run { client in
            let limit = Datastore.maxPasswordsPerRequest
            let flood = try await client.post("/user", Self.users(600))
            #expect(flood.status == .badRequest)
            #expect(flood.error == "A request may set at most \(limit) user passwords (bulk elements and related objects together); send the rest in further requests")
            let justOver = try await client.post("/user", Self.users(limit + 1))
            #expect(justOver.status == .badRequest)
            let graph: JSONValue = ["team_id": "t1", "members": Self.users(limit + 1, prefix: "m")]
            let nested = try await client.post("/team", graph, headers: ["X-StackMob-Relations": "members=user"])
            #expect(nested.status == .badRequest, "\(nested.text)")
            #expect(try await client.get("/user").array?.isEmpty != false)
            // At the cap: created.
            let allowed = try await client.post("/user", Self.users(limit))
            #expect(allowed.status == .ok || allowed.status == .created, "\(allowed.text)")
            #expect(try await client.get("/user").array?.count == limit)
        }
    }

    /// CPU seconds the process has used (`utime` + `stime` of /proc/<pid>/stat).
    static func cpuSeconds(of pid: pid_t) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // After the command name, which may hold spaces, in parentheses.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        let ticks = try #require(Double(fields[11])) + (try #require(Double(fields[12])))
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test("a bulk sign-up past its deadline answers 504 and stops hashing")
    func deadlineStopsHashing() async throws {
        try await SpawnedServer.with(settings: { _ in
            [
                // About a quarter of a second a hash: twenty are five seconds of CPU.
                "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "2000000", "STACKMOB_LIMITS__REQUEST_TIMEOUT_SECONDS": "2",
                "STACKMOB_CUSTOM_CODE__TIMEOUT_SECONDS": "1",
            ]
        }) { client, server in
            let answer = try await client.post("/user", Self.users(Datastore.maxPasswordsPerRequest))
            #expect(answer.status == .gatewayTimeout, "\(answer.text)")
            let start = try Self.cpuSeconds(of: server.processID)
            try await Task.sleep(for: .seconds(3))
            let spent = try Self.cpuSeconds(of: server.processID) - start
            // The hash under way when the deadline passed may finish; no other starts.
            #expect(spent < 0.8, "the server went on hashing for \(spent) s of CPU after answering 504")
            #expect(try await client.get("/user").array?.isEmpty != false)
        }
    }
}
