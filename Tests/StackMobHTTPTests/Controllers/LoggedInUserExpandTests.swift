import StackMobCore
import StackMobTestSupport
import Testing

@Suite("loggedInUser honours expansion and select into relations")
struct LoggedInUserExpandTests {
    @Test("X-StackMob-Expand and _expand expand the user's relations; without them they stay ids")
    func expandsRelations() async throws {
        let clock = ManualClock()
        try await TestServer.run(clock: clock) { client in
            let created = try await client.post(
                "/user", ["username": "alice", "password": "secret-1", "team": ["team_id": "t1", "name": "Blue"]],
                headers: ["X-StackMob-Relations": "team=team"])
            #expect(created.status == .created)
            let session = try await client.login([("username", "alice"), ("password", "secret-1")])
            let ts = clock.nowMilliseconds() / 1000

            let plain = try await client.signed(.get, "/user/loggedInUser", session: session, ts: ts)
            #expect(plain.status == .ok)
            #expect(plain.object?["team"] == "t1")

            let expanded = try await client.signed(.get, "/user/loggedInUser", session: session, ts: ts, headers: ["X-StackMob-Expand": "1"])
            #expect(expanded.status == .ok)
            #expect(expanded.object?["team"]?.objectValue?["name"] == "Blue")
            #expect(expanded.object?["password"] == nil)

            let query = try await client.signed(.get, "/user/loggedInUser?_expand=1", session: session, ts: ts)
            #expect(query.object?["team"]?.objectValue?["team_id"] == "t1")

            let selected = try await client.signed(
                .get, "/user/loggedInUser", session: session, ts: ts, headers: ["X-StackMob-Expand": "1", "X-StackMob-Select": "team.name"])
            #expect(selected.status == .ok)
            // Every level keeps its primary key (Core Data needs it), and nothing else unselected.
            #expect(selected.object == ["username": "alice", "team": ["team_id": "t1", "name": "Blue"]])
        }
    }
}
