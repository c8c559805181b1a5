import ArgumentParser
import Foundation
import StackMobCore
import StackMobSQLite

/// `stackmob-server backup --out <file>`: a consistent copy of a database while the server
/// serves; `restore --from <file>` puts one back with the server stopped.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "backup", abstract: "Copy an environment's database, online.")

    @OptionGroup var data: DataOptions
    @Option(help: "development or production (default production).") var env = "production"
    @Option(help: "The file to write (must not exist).") var out: String

    func run() async throws {
        let kind = try DataOptions.environment(env, option: "--env")
        let configuration = try data.load()
        guard configuration.storage.engine == .sqlite else {
            throw ValidationError("backup copies SQLite files; on PostgreSQL use pg_dump or base backups (docs/operations.md, Backups and restore)")
        }
        let check = try await DataOptions.reportingTransferErrors { try BackupTool.backup(configuration: configuration, environment: kind, to: out) }
        print("Backed up \(kind.rawValue) to \(out) (integrity check: \(check)).")
    }
}

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "restore", abstract: "Put a backup back as an environment's database (server stopped).")

    @OptionGroup var data: DataOptions
    @Option(help: "development or production (default production).") var env = "production"
    @Option(help: "The backup file to restore.") var from: String

    func run() async throws {
        let kind = try DataOptions.environment(env, option: "--env")
        let configuration = try data.load()
        guard configuration.storage.engine == .sqlite else {
            throw ValidationError("restore puts back SQLite files; on PostgreSQL use pg_restore (docs/operations.md, Backups and restore)")
        }
        let kept = try await DataOptions.reportingTransferErrors {
            try BackupTool.restore(configuration: configuration, environment: kind, from: from)
        }
        print("Restored \(kind.rawValue) from \(from)" + (kept.map { "; the previous database is kept as \($0)." } ?? "."))
    }
}
