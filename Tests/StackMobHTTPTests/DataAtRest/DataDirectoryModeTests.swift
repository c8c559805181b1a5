import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the server writes is its own user's alone: directories 0700, files 0600
/// (docs/operations.md, "Data at rest"): the data directory, the databases and their -wal and
/// -shm files, keys, the seal key, uploaded files, backups and exports.
@Suite("Data at rest: file modes")
struct DataDirectoryModeTests {
    /// The binary with fixed development keys (the client needs them) and generated production
    /// ones (so that `keys.json` is written).
    static let environment = [
        "STACKMOB_PUSH__PORT": "0",
        "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000",
        "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PUBLIC_KEY": TestServer.developmentPublicKey,
        "STACKMOB_ENVIRONMENTS__DEVELOPMENT__PRIVATE_KEY": TestServer.developmentPrivateKey,
    ]

    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o7777
    }

    /// Every item under `root` (itself included) whose mode is not 0700 for a directory or 0600
    /// for a file, as "path mode"; and how many files there are.
    static func looseItems(under root: String) -> (loose: [String], files: [String]) {
        var loose: [String] = []
        var files: [String] = []
        if mode(root) != 0o700 { loose.append("\(root) \(String(mode(root) ?? 0, radix: 8))") }
        for relative in FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [] {
            let path = (root as NSString).appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            if !isDirectory.boolValue { files.append(relative) }
            let expected: mode_t = isDirectory.boolValue ? 0o700 : 0o600
            if mode(path) != expected { loose.append("\(relative) \(String(mode(path) ?? 0, radix: 8))") }
        }
        return (loose, files)
    }

    @Test(
        "after a start, writes, an upload, a scheduled and a command-line backup and an export, every directory is 0700 and every file 0600",
        .sqliteFiles)
    func modes() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let data = "\(directory)/data"
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", data], directory: directory,
                environment: Self.environment.merging(["STACKMOB_BACKUPS__INTERVAL_SECONDS": "1", "STACKMOB_BACKUPS__KEEP": "2"]) { $1 })
            let port = try #require(try await server.listeningPort(), "server did not start: \(server.log)")
            try await OperationsHarness.withClient(port: port) { client async throws in
                #expect(try await client.post("/user", ["username": "ann", "password": "pw-ann", "email": "ann@example.com"]).status == .created)
                let pic = BinaryFieldTests.envelope(Array("not really a png".utf8), filename: "cat.png")
                #expect(try await client.post("/photo", ["title": "cat", "pic": .string(pic)]).status == .created)
            }
            // A scheduled round after the writes.
            try await OperationsHarness.waitUntil {
                ((try? FileManager.default.contentsOfDirectory(atPath: "\(data)/backups")) ?? []).contains { $0.hasPrefix("development-") }
            }
            let (backedUp, backupOutput) = try await OperationsHarness.run(
                ["backup", "--data-dir", data, "--env", "development", "--out", "\(directory)/copy.sqlite"], in: directory,
                environment: Self.environment)
            #expect(backedUp == 0, "\(backupOutput)")
            #expect(Self.mode("\(directory)/copy.sqlite") == 0o600)

            // While the server runs: the databases' -wal and -shm files are there too.
            let running = Self.looseItems(under: data)
            #expect(running.loose.isEmpty, "open to others: \(running.loose)")
            for name in [
                "keys.json", "seal.key", "development.sqlite", "development.sqlite-wal", "development.sqlite-shm", "production.sqlite",
            ] {
                #expect(running.files.contains(name), "\(name) missing from \(running.files.sorted())")
            }
            #expect(running.files.contains { $0.hasPrefix("files/development/photo/") && $0.hasSuffix("/pic/cat.png") }, "\(running.files)")
            #expect(running.files.contains { $0.hasPrefix("backups/development-") })
            #expect(await server.terminate() == 0)

            let (exported, exportOutput) = try await OperationsHarness.run(
                ["export", "--data-dir", data, "--env", "development", "--out", "\(directory)/dump", "--files"], in: directory,
                environment: Self.environment)
            #expect(exported == 0, "\(exportOutput)")
            let export = Self.looseItems(under: "\(directory)/dump")
            #expect(export.loose.isEmpty, "open to others: \(export.loose)")
            #expect(export.files.contains("objects/user.jsonl") && export.files.contains { $0.hasSuffix("/pic/cat.png") }, "\(export.files)")
            #expect(Self.looseItems(under: data).loose.isEmpty)
        }
    }

    @Test("a data directory the operator made open to others is left as it is, with a warning; what the server writes in it is not")
    func existingDirectory() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            #expect(chmod(directory, 0o755) == 0)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", directory], directory: directory, environment: Self.environment)
            #expect(try await server.listeningPort() != nil, "server did not start: \(server.log)")
            #expect(await server.terminate() == 0)
            #expect(server.log.contains("The data directory is open to other users"), "\(server.log)")
            #expect(Self.mode(directory) == 0o755)
            let inside = Self.looseItems(under: directory).loose.filter { $0 != "\(directory) 755" }
            #expect(inside.isEmpty, "open to others: \(inside)")
        }
    }
}
