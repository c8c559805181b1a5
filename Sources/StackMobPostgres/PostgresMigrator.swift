import Foundation
import PostgresNIO
import StackMobCore
import StackMobMigrations

/// Creates the environment's schema and applies `migrations/postgresql/` in order, each once, in
/// one transaction under an advisory lock of the schema: instances starting together migrate one at a time,
/// and a failed migration leaves nothing half applied.
enum PostgresMigrator {
    static func migrate(_ database: PostgresPool, schema: String, migrations: [(name: String, sql: String)]) async throws {
        try await database.writeTransaction { connection in
            // One lock per environment schema: other databases' and schemas' migrations run alongside.
            try await database.execute(
                PostgresStatement("SELECT pg_advisory_xact_lock(hashtext('stackmob migrations ' || $1))", [.text(schema)]), on: connection)
            try await database.execute("CREATE SCHEMA IF NOT EXISTS \(quote(schema))", on: connection)
            try await database.execute(
                "CREATE TABLE IF NOT EXISTS _sm_migrations (name TEXT PRIMARY KEY NOT NULL, applied_at BIGINT NOT NULL)", on: connection)
            let applied = Set(
                try await database.execute(PostgresStatement("SELECT name FROM _sm_migrations"), on: connection).map { try $0.decode(String.self) })
            for migration in migrations where !applied.contains(migration.name) {
                for statement in statements(of: migration.sql) {
                    try await database.execute(statement, on: connection)
                }
                try await database.execute(
                    PostgresStatement(
                        "INSERT INTO _sm_migrations (name, applied_at) VALUES ($1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)",
                        [.text(migration.name)]), on: connection)
            }
        }
    }

    /// A migration's statements, one by one: the extended protocol postgres-nio speaks takes one
    /// statement at a time. Splits at `;` outside `$$` bodies, after dropping `--` comment lines.
    static func statements(of sql: String) -> [String] {
        let text = sql.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
            .joined(separator: "\n")
        var statements: [String] = []
        var current = ""
        var insideBody = false
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("$$") {
                insideBody.toggle()
                current += "$$"
                index = text.index(index, offsetBy: 2)
                continue
            }
            let character = text[index]
            if character == ";" && !insideBody {
                statements.append(current)
                current = ""
            } else {
                current.append(character)
            }
            index = text.index(after: index)
        }
        statements.append(current)
        return statements.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }
}
