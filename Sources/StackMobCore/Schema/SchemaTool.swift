import Foundation
import Logging

/// The work behind `stackmob-server schema export`, `schema diff` and `deploy` (docs/operations.md,
/// "From development to production"): opens the data directory as `serve` does (the configuration's
/// declarations applied first), without serving, and closes it again.
public enum SchemaTool {
    /// Where declarations come from: an environment's current schemas, or a schema file.
    public enum Source: Sendable, Equatable {
        case environment(EnvironmentKind)
        case file(String)
    }

    public static func export(
        configuration: StackMobConfiguration, storage: any StorageProvider, environment: EnvironmentKind, logger: Logger
    ) async throws -> String {
        try await Backend.withOpened(configuration, storage: storage, logger: logger) { backend in
            JSONWriter.pretty(SchemaDeclaration.document(try await backend.environment(environment).datastore.declarations()))
        }
    }

    /// The plan of applying `source` to `target`; `apply` also applies it (additive, one
    /// transaction). `drop` also drops what the target holds and the source does not declare,
    /// after copying the target's database to `<data_dir>/backups/<env>-<ms>.before-drop.sqlite`
    /// (answered as `backup`; whole
    /// and, through `disk`, on the disk before anything is dropped).
    public static func plan(
        configuration: StackMobConfiguration, storage: any StorageProvider, from source: Source, to target: EnvironmentKind, apply: Bool,
        drop: Bool = false, logger: Logger, disk: DiskSync = .system
    ) async throws -> (plan: SchemaPlan, drop: DropOutcome?) {
        try await Backend.withOpened(configuration, storage: storage, logger: logger) { backend in
            let declarations: [SchemaDeclaration]
            switch source {
            case .environment(let kind): declarations = try await backend.environment(kind).datastore.declarations()
            case .file(let path): declarations = Array(try ConfigurationDecoder.readSchemaFile(path, key: "--file").values)
            }
            let datastore = backend.environment(target).datastore
            let plan = try await datastore.plan(declarations)
            let dropping = drop && !plan.extra.isEmpty
            guard apply, plan.conflicts.isEmpty, !plan.changes.isEmpty || dropping else { return (plan, nil) }
            // SQLite: the server copies the database first. PostgreSQL: the operator's own backups
            // (pg_dump, point-in-time recovery) are the copy; docs/operations.md says so.
            var backup: String?
            if dropping, let engine = datastore.backupEngine {
                let directory = (configuration.dataDirectory as NSString).appendingPathComponent("backups")
                // Not named as a scheduled copy (`<env>-<ms>.sqlite`): rotation would delete it once
                // `backups.keep` newer copies exist, and they all lack what was dropped.
                let name = "\(target.rawValue)-\(Int64(Date().timeIntervalSince1970 * 1000)).before-drop.sqlite"
                let path = (directory as NSString).appendingPathComponent(name)
                // Whole and on the disk before the drop commits.
                try await BackupRounds.copy(engine, to: path, disk: disk)
                backup = path
            }
            let applied = try await datastore.deploy(declarations, dropping: dropping)
            return (applied, dropping ? DropOutcome(backup: backup) : nil)
        }
    }

    /// The plan as the CLI prints it: one change per line.
    /// What `deploy --drop` did besides the plan: where the database was copied first, when the
    /// engine can copy it.
    public struct DropOutcome: Sendable, Equatable {
        public let backup: String?
    }

    public static func report(_ plan: SchemaPlan, target: EnvironmentKind, applied: Bool, drop: DropOutcome? = nil) -> String {
        var lines: [String] = []
        if !plan.conflicts.isEmpty {
            lines.append("Conflicts with the data in \(target.rawValue); nothing was changed:")
            lines += plan.conflicts.map { "! \($0)" }
        } else if plan.changes.isEmpty {
            lines.append("No changes: \(target.rawValue) already holds every declared schema, field, index and permission.")
        } else {
            lines.append(applied ? "Applied to \(target.rawValue):" : "Changes to \(target.rawValue):")
            lines += plan.changes.map(\.description)
        }
        if let drop, plan.conflicts.isEmpty {
            if let backup = drop.backup {
                lines.append("Dropped from \(target.rawValue) (its database before the drop was copied to \(backup)):")
            } else {
                lines.append("Dropped from \(target.rawValue) (PostgreSQL: your own backups hold the data before the drop):")
            }
            lines += plan.extra.map(\.description)
        } else if !plan.extra.isEmpty {
            lines.append("Kept (in \(target.rawValue) but not declared; only deploy --drop removes them, after a backup):")
            lines += plan.extra.map { "  \($0.description.dropFirst(2))" }
        }
        return lines.joined(separator: "\n")
    }
}
