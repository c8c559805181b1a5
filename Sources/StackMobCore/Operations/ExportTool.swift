import Foundation
import Logging

/// `stackmob-server export`: an environment as a directory of plain files (docs/operations.md,
/// "Export and import"):
///
/// - `manifest.json`: format, version, environment, object counts;
/// - `schemas.json`: the declared schemas (`{"schemas": {…}}`, as `schema export` prints);
/// - `objects/<schema>.jsonl`: one stored object a line, by primary key, exactly as stored (the
///   user schema's lines carry password hashes, never plain passwords; `aclrole` holds roles);
/// - `push_tokens.jsonl`: `{"type", "token", "user"}` a line;
/// - `files/`: with `--files`, the environment's binary-field files (local store only).
public enum ExportTool {
    public static let format = "stackmob-export"
    public static let version: Int64 = 1

    public struct Summary: Sendable, Equatable {
        public var objects: [String: Int] = [:]
        public var pushTokens = 0
        public var files = false
    }

    public static func export(
        configuration: StackMobConfiguration, storage: any StorageProvider, environment kind: EnvironmentKind, to directory: String,
        includeFiles: Bool, logger: Logger, disk: DiskSync = .system
    ) async throws -> Summary {
        let manager = FileManager.default
        if let existing = try? manager.contentsOfDirectory(atPath: directory), !existing.isEmpty { throw TransferError.exists(directory) }
        // An export holds what the database holds (password hashes, push tokens): directories
        // 0700, files 0600, as in the data directory (`PrivateFiles`). Each file is on the disk
        // before its name, and the manifest, written last, names a whole export (`disk`: always
        // synced, whatever `storage.synchronous` says; tests record the syncs).
        try PrivateFiles.createDirectory(atPath: "\(directory)/objects", disk: disk)
        return try await Backend.withOpened(configuration, storage: storage, logger: logger) { backend in
            let environment = backend.environment(kind)
            var summary = Summary()
            let declarations = try await environment.datastore.declarations()
            try write(JSONWriter.pretty(SchemaDeclaration.document(declarations)), to: "\(directory)/schemas.json", disk: disk)
            for (schema, objects) in try await environment.datastore.exportObjects() {
                var text = ""
                for object in objects { text += JSONWriter.string(.object(object)) + "\n" }
                try write(text, to: "\(directory)/objects/\(schema).jsonl", disk: disk)
                summary.objects[schema] = objects.count
            }
            let tokens = try await environment.push.allTokens()
            var lines = ""
            for registered in tokens {
                var line: JSONObject = ["type": .string(registered.token.type.rawValue), "token": .string(registered.token.token)]
                if let user = registered.user { line["user"] = .string(user) }
                lines += JSONWriter.string(.object(line)) + "\n"
            }
            try write(lines, to: "\(directory)/push_tokens.jsonl", disk: disk)
            summary.pushTokens = tokens.count
            if includeFiles, let local = backend.files as? LocalFileStore {
                let source = local.root.appendingPathComponent(kind.rawValue).path
                if manager.fileExists(atPath: source) {
                    try manager.copyItem(atPath: source, toPath: "\(directory)/files")
                    // Files an earlier version stored keep their default mode in the copy.
                    try PrivateFiles.restrict(treeAtPath: "\(directory)/files")
                    // On the disk as the export's other files are (the manifest's write syncs
                    // the name `files`).
                    try disk.syncTree(atPath: "\(directory)/files")
                    summary.files = true
                }
            }
            let manifest: JSONObject = [
                "format": .string(format), "version": .integer(version), "environment": .string(kind.rawValue),
                "exported_at": .integer(Int64(Date().timeIntervalSince1970 * 1000)),
                "objects": .object(JSONObject(uniqueKeysWithValues: summary.objects.map { ($0.key, .integer(Int64($0.value))) })), "push_tokens": .integer(Int64(summary.pushTokens)),
                "files": .bool(summary.files),
            ]
            try write(JSONWriter.pretty(.object(manifest)), to: "\(directory)/manifest.json", disk: disk)
            return summary
        }
    }

    private static func write(_ text: String, to path: String, disk: DiskSync) throws {
        try PrivateFiles.write(Array(text.utf8), to: path, disk: disk)
    }
}
