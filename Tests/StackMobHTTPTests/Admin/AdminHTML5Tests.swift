import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The HTML5 app through the admin API (issues 15 and 22): the same deploy, rollback and promote
/// as `stackmob-server html5`, for operators only, audited.
@Suite("Admin API: HTML5 deploy, rollback, promote")
struct AdminHTML5Tests {
    static func site(_ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: directory.appendingPathComponent("index.html"))
        return directory.path
    }

    @Test("deploy two versions, roll back, promote to production; bad input is a 400 and changes nothing")
    func deployRollbackPromote() async throws {
        try await AdminAPITests.run { client in
            let base = "/_admin/environments/development/html5"
            #expect(try await client.get(base).status == .unauthorized)
            #expect(try await client.post(base + "/deploy", ["directory": .string(try Self.site("x"))]).status == .unauthorized)
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            // Nothing deployed: no current version (JSON answers leave nulls out).
            #expect(try await client.get(base, headers: auth).object == ["versions": []])

            let first = try await client.post(base + "/deploy", ["directory": .string(try Self.site("<h1>one</h1>"))], headers: auth)
            #expect(first.object?["version"] == 1, "\(first.text)")
            #expect(try await client.post(base + "/deploy", ["directory": .string(try Self.site("<h1>two</h1>"))], headers: auth).object?["version"] == 2)
            #expect(try await client.get(base, headers: auth).object == ["current": 2, "versions": [1, 2]])
            #expect(try await client.post(base + "/rollback", .object([:]), headers: auth).object?["version"] == 1)
            #expect(try await client.get(base, headers: auth).object?["current"] == 1)

            let wrongPlace = try await client.post(base + "/promote", .object([:]), headers: auth)
            #expect(wrongPlace.status == .badRequest)
            let promoted = try await client.post("/_admin/environments/production/html5/promote", .object([:]), headers: auth)
            #expect(promoted.object?["version"] == 1, "\(promoted.text)")
            #expect(try await client.get("/_admin/environments/production/html5", headers: auth).object?["current"] == 1)

            let missing = try await client.post(base + "/deploy", ["directory": "/nonexistent/site"], headers: auth)
            #expect(missing.status == .badRequest)
            #expect(missing.error != nil)
            #expect(try await client.post(base + "/deploy", .object([:]), headers: auth).status == .badRequest)
            #expect(try await client.get(base, headers: auth).object == ["current": 1, "versions": [1, 2]])

            let actions = (try await client.get("/_admin/audit", headers: auth).array ?? []).compactMap { $0.objectValue?["action"]?.stringValue }
            #expect(actions.filter { $0.hasPrefix("html5.") }.sorted() == ["html5.deploy", "html5.deploy", "html5.promote", "html5.rollback"])
        }
    }
}
