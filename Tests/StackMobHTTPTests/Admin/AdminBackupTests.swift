import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Backups from the admin API and the console (docs/operations.md, "Backups and restore"): a
/// copy now, the list, and a download that asks for the operator's password again.
@Suite("Admin API and console: backups")
struct AdminBackupTests {
    static let onPostgreSQL = TestServer.postgreSQLURL != nil

    @Test("a copy now is listed; its download needs the password again, is audited, and names only files of the list")
    func adminAPI() async throws {
        try await AdminAPITests.run { client in
            let bearer = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            _ = try await client.create("todo", ["title": "kept"])
            #expect(try await client.get("/_admin/backups").status == .unauthorized)
            let empty = try await client.get("/_admin/backups", headers: bearer)
            #expect(empty.status == .ok && empty.object?["backups"] == [])
            let created = try await client.withoutKey.request(.post, "/_admin/backups", json: ["environment": "development"], headers: bearer)
            if Self.onPostgreSQL {
                #expect(created.status == .conflict && created.error?.contains("pg_dump") == true)
                #expect(empty.object?["engine_backs_up"] == .bool(false))
                return
            }
            #expect(created.status == .created, "\(created.text)")
            let name = try #require(created.object?["written"]?.arrayValue?.first?.stringValue)
            #expect(name.hasPrefix("development-") && name.hasSuffix(".sqlite"))
            let listed = try await client.get("/_admin/backups", headers: bearer)
            let entry = try #require(listed.object?["backups"]?.arrayValue?.first?.objectValue)
            #expect(entry["name"] == .string(name) && entry["environment"] == "development")
            if case .integer(let bytes) = entry["bytes"] { #expect(bytes > 0) } else { Issue.record("no size: \(entry)") }
            #expect(listed.object?["restore"]?.stringValue?.contains("stackmob-server restore") == true)

            let wrong = try await client.withoutKey.request(
                .post, "/_admin/backups/download", json: ["name": .string(name), "password": "guess"], headers: bearer)
            #expect(wrong.status == .unauthorized)
            let outside = try await client.withoutKey.request(
                .post, "/_admin/backups/download", json: ["name": "../development.sqlite", "password": .string(AdminAPITests.password)], headers: bearer)
            #expect(outside.status == .notFound)
            let file = try await client.withoutKey.request(
                .post, "/_admin/backups/download", json: ["name": .string(name), "password": .string(AdminAPITests.password)], headers: bearer)
            #expect(file.status == .ok)
            #expect(file.body.starts(with: Array("SQLite format 3".utf8)))
            #expect(file.header("Content-Disposition") == "attachment; filename=\"\(name)\"")
            let audit = (try await client.withoutKey.get("/_admin/audit", headers: bearer).array ?? []).compactMap(\.objectValue)
            #expect(audit.contains { $0["action"] == "backup.create" } && audit.filter { $0["action"] == "backup.download" }.count == 1)
        }
    }

    @Test("the console's Backups page: a copy now, a download with the password, a refusal without it")
    func console() async throws {
        try await AdminAPITests.run { client in
            let (cookie, csrf) = try await ConsoleTests.signIn(client)
            let headers = ConsoleTests.form.merging(["Cookie": cookie]) { $1 }
            let page = try await client.withoutKey.get("\(ConsoleTests.console)/development/backups", headers: ["Cookie": cookie])
            #expect(page.status == .ok)
            if Self.onPostgreSQL {
                #expect(page.text.contains("pg_dump"))
                return
            }
            #expect(page.text.contains("No backup yet."))
            let made = try await client.withoutKey.request(.post, "\(ConsoleTests.console)/development/backups", rawBody: "csrf=\(csrf)", headers: headers)
            #expect(made.status == .seeOther && made.header("Location")?.contains("Backup%20written") == true, "\(made.header("Location") ?? "")")
            let listed = try await client.withoutKey.get("\(ConsoleTests.console)/development/backups", headers: ["Cookie": cookie])
            let name = try #require(listed.text.range(of: "development-[0-9]+\\.sqlite", options: .regularExpression).map { String(listed.text[$0]) })
            let password = ConsoleTestsPassword.encoded
            let refused = try await client.withoutKey.request(
                .post, "\(ConsoleTests.console)/development/backups/download", rawBody: "csrf=\(csrf)&name=\(name)&password=wrong", headers: headers)
            #expect(refused.status == .seeOther && refused.header("Location")?.contains("Wrong%20password") == true)
            let file = try await client.withoutKey.request(
                .post, "\(ConsoleTests.console)/development/backups/download", rawBody: "csrf=\(csrf)&name=\(name)&password=\(password)", headers: headers)
            #expect(file.status == .ok && file.body.starts(with: Array("SQLite format 3".utf8)))
            let noToken = try await client.withoutKey.request(
                .post, "\(ConsoleTests.console)/development/backups/download", rawBody: "name=\(name)&password=\(password)", headers: headers)
            #expect(noToken.status == .forbidden)
        }
    }
}
