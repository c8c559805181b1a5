import Foundation
import Logging

/// `stackmob-server import`: loads an export directory (`ExportTool`) into an environment.
///
/// Everything is read and checked before anything is written: a line that is not JSON, an
/// object of an undeclared schema, a field the schema does not declare or a value of the wrong
/// type stops the import with the file and line, and the environment is left as it was. Then the
/// schemas are deployed (additive) and the objects written in one transaction, as they are:
/// importing the same directory again changes nothing.
public enum ImportTool {
    public struct Summary: Sendable, Equatable {
        public var objects = ImportCounts()
        public var pushTokensAdded = 0
        public var files = false
    }

    /// `progress(done, total)` is called as objects are written.
    public static func importDirectory(
        _ directory: String, configuration: StackMobConfiguration, storage: any StorageProvider, environment kind: EnvironmentKind, logger: Logger,
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> Summary {
        let manifest = try readJSON("\(directory)/manifest.json", name: "manifest.json")
        guard manifest.objectValue?["format"]?.stringValue == ExportTool.format,
            let version = manifest.objectValue?["version"]?.integerValue, version <= ExportTool.version
        else { throw TransferError.badFile(file: "manifest.json", "not a \(ExportTool.format) manifest of version \(ExportTool.version)") }
        let declarations: [String: SchemaDeclaration]
        do {
            declarations = try SchemaDeclarations.parseDocument(try readJSON("\(directory)/schemas.json", name: "schemas.json"), source: "schemas.json")
        } catch let error as ConfigurationError {
            throw TransferError.badFile(file: "schemas.json", error.description)
        }
        let batches = try readObjects(directory, declared: declarations)
        let tokens = try readTokens(directory)
        let total = batches.reduce(0) { $0 + $1.objects.count }
        return try await Backend.withOpened(configuration, storage: storage, logger: logger) { backend in
            let environment = backend.environment(kind)
            let datastore = environment.datastore
            for (schema, objects) in batches {
                let fields = datastore.importableFields(of: declarations[schema]!)
                try check(objects, schema: schema, fields: fields)
            }
            let ordered = declarations.values.sorted { $0.name < $1.name }
            let plan = try await datastore.plan(ordered)
            if let conflict = plan.conflicts.first { throw TransferError.conflict("\(conflict)") }
            try await datastore.deploy(ordered)
            var summary = Summary()
            // New files before the objects that name them, as an upload stores its file before
            // its commit (`LocalFileStore.put`); files that replace stored ones after, so that
            // an import that fails leaves the stored objects with their own bytes.
            let files = "\(directory)/files"
            var replacing: [FileCopy] = []
            let local = FileManager.default.fileExists(atPath: files) ? backend.files as? LocalFileStore : nil
            if let local {
                let copies = try fileCopies(from: URL(fileURLWithPath: files), to: local.root.appendingPathComponent(kind.rawValue))
                replacing = copies.filter { FileManager.default.fileExists(atPath: $0.destination) }
                try copy(copies.filter { !FileManager.default.fileExists(atPath: $0.destination) }, disk: .durable(local.durable))
            }
            let objects = batches.map { (schema: $0.schema, objects: $0.objects.map(\.object)) }
            summary.objects = try await datastore.importObjects(objects) { progress($0, total) }
            if let local {
                try copy(replacing, disk: .durable(local.durable))
                summary.files = true
            }
            let existing = Set(try await environment.push.allTokens().map { "\($0.token.type.rawValue)\u{0}\($0.token.token)\u{0}\($0.user ?? "")" })
            for (token, user) in tokens where !existing.contains("\(token.type.rawValue)\u{0}\(token.token)\u{0}\(user ?? "")") {
                try await environment.push.register(token, user: user, overwrite: true)
                summary.pushTokensAdded += 1
            }
            return summary
        }
    }

    // MARK: - Reading and checking

    struct Line: Sendable {
        let number: Int
        let object: JSONObject
    }

    private static func readJSON(_ path: String, name: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else { throw TransferError.unreadable(file: name) }
        do {
            return try JSONParser.parse(data)
        } catch {
            throw TransferError.badFile(file: name, "not valid JSON: \(error)")
        }
    }

    /// Each `objects/<schema>.jsonl`, parsed line by line.
    private static func readObjects(_ directory: String, declared: [String: SchemaDeclaration]) throws -> [(schema: String, objects: [Line])] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/objects")) ?? []
        var batches: [(schema: String, objects: [Line])] = []
        for file in files.sorted() where file.hasSuffix(".jsonl") {
            let schema = String(file.dropLast(".jsonl".count))
            let name = "objects/\(file)"
            guard declared[schema] != nil else { throw TransferError.badFile(file: name, "the schema '\(schema)' is not declared in schemas.json") }
            var parsed: [Line] = []
            for (number, text) in try lines(of: "\(directory)/\(name)", name: name) {
                guard let value = try? JSONParser.parse(text) else { throw TransferError.badLine(file: name, line: number, "not valid JSON") }
                guard let object = value.objectValue else { throw TransferError.badLine(file: name, line: number, "not a JSON object") }
                parsed.append(Line(number: number, object: object))
            }
            batches.append((schema, parsed))
        }
        return batches
    }

    private static func readTokens(_ directory: String) throws -> [(PushToken, String?)] {
        let path = "\(directory)/push_tokens.jsonl"
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try lines(of: path, name: "push_tokens.jsonl").map { number, text in
            guard let object = (try? JSONParser.parse(text))?.objectValue else {
                throw TransferError.badLine(file: "push_tokens.jsonl", line: number, "not a JSON object")
            }
            guard let type = object["type"]?.stringValue.flatMap(PushTokenType.init(rawValue:)), let value = object["token"]?.stringValue,
                let token = try? PushToken(type: type, token: value)
            else { throw TransferError.badLine(file: "push_tokens.jsonl", line: number, "not a valid push token") }
            return (token, object["user"]?.stringValue)
        }
    }

    /// The non-empty lines of a file with their 1-based numbers.
    private static func lines(of path: String, name: String) throws -> [(Int, String)] {
        guard let data = FileManager.default.contents(atPath: path) else { throw TransferError.unreadable(file: name) }
        guard let text = String(data: data, encoding: .utf8) else { throw TransferError.badFile(file: name, "not UTF-8 text") }
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            line.trimmingSpaces().isEmpty ? nil : (index + 1, String(line))
        }
    }

    /// Every field declared, with a value of its type, and a primary key.
    private static func check(_ lines: [Line], schema: String, fields: [String: FieldType]) throws {
        let name = "objects/\(schema).jsonl"
        for line in lines {
            for (field, value) in line.object.sorted(by: { $0.key < $1.key }) {
                guard let type = fields[field] else {
                    throw TransferError.badLine(file: name, line: line.number, "the field '\(field)' is not declared for schema '\(schema)'")
                }
                guard type.holds(value) else {
                    throw TransferError.badLine(file: name, line: line.number, "the field '\(field)' must hold \(type.name) values")
                }
            }
        }
    }

    /// A file of the export and where it goes in the file store.
    struct FileCopy {
        let source: URL
        let destination: String
    }

    /// The export's regular files (not links, devices or pipes) under `source`, each with its
    /// place under `target`.
    private static func fileCopies(from source: URL, to target: URL) throws -> [FileCopy] {
        guard let enumerator = FileManager.default.enumerator(at: source, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return enumerator.compactMap { item -> FileCopy? in
            guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { return nil }
            return FileCopy(source: url, destination: target.path + String(url.path.dropFirst(source.path.count)))
        }
    }

    /// Copies files in as the file store writes an upload (`PrivateFiles`): directories 0700 and
    /// files 0600 whatever the export's modes, each file whole under its name or absent, and with
    /// `disk` on the disk before its name is.
    private static func copy(_ files: [FileCopy], disk: DiskSync) throws {
        for file in files {
            try PrivateFiles.createDirectory(atPath: (file.destination as NSString).deletingLastPathComponent, disk: disk)
            try PrivateFiles.write(Array(try Data(contentsOf: file.source)), to: file.destination, disk: disk)
        }
    }
}
