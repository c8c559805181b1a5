import Foundation
import StackMobCore
import StackMobSQLite
import StackMobTestSupport
import Synchronization
import Testing

/// `backup`, `restore` and scheduled backups (docs/operations.md, "Backups and restore").
@Suite("Backups and restore", .sqliteFiles, .tags(.timing))
struct BackupTests {
    @Test("a backup taken under continuous writes restores to a sound database holding every write acknowledged before it began")
    func backupUnderWrites() async throws {
        try await TestServer.withDataDirectory { directory in
            let data = "\(directory)/data"
            let (server, port) = try await OperationsHarness.serve(["--data-dir", data], in: directory)
            let log = TrafficLog()
            async let writes: Void = log.loop {
                try await OperationsHarness.withClient(port: port) { client in
                    var index = 0
                    while !log.isStopped {
                        let response = try await client.post("/note", ["note_id": .string("n\(index)"), "text": .string("write \(index)")])
                        if response.status == .created { log.acknowledged.withLock { $0.append(("n\(index)", ContinuousClock.now)) } }
                        index += 1
                    }
                }
            }
            // The backup starts once writes flow, and writes go on while it runs and after it.
            try await OperationsHarness.waitUntil { log.isStopped || log.acknowledged.withLock { $0.count } >= 20 }
            let began = ContinuousClock.now
            let (status, output) = try await OperationsHarness.run(
                ["backup", "--data-dir", data, "--env", "development", "--out", "\(directory)/copy.sqlite"], in: directory)
            let acknowledgedAtEnd = log.acknowledged.withLock { $0.count }
            try await OperationsHarness.waitUntil { log.isStopped || log.acknowledged.withLock { $0.count } >= acknowledgedAtEnd + 10 }
            log.stop.store(true, ordering: .relaxed)
            try await writes
            #expect(status == 0 && output.contains("integrity check: ok"), "\(output)")
            let before = log.acknowledged.withLock { $0.filter { $0.at < began }.map(\.id) }
            #expect(before.count >= 20)
            // restore refuses while the server has the database open.
            let (refused, refusal) = try await OperationsHarness.run(
                ["restore", "--data-dir", data, "--env", "development", "--from", "\(directory)/copy.sqlite"], in: directory)
            #expect(refused == 1 && refusal.contains("is open in another process: stop the server first"), "\(refusal)")
            #expect(await server.terminate() == 0)

            // Stopped: the copy replaces the database in place; the old one is kept beside it.
            let (restoreStatus, restoreOutput) = try await OperationsHarness.run(
                ["restore", "--data-dir", data, "--env", "development", "--from", "\(directory)/copy.sqlite"], in: directory)
            #expect(restoreStatus == 0 && restoreOutput.contains("the previous database is kept as"), "\(restoreOutput)")
            let (again, port2) = try await OperationsHarness.serve(["--data-dir", data], in: directory)
            try await OperationsHarness.withClient(port: port2) { client in
                let response = try await client.get("/note", headers: ["Range": "objects=0-99999"])
                let ids = Set((response.array ?? []).compactMap { $0.objectValue?["note_id"]?.stringValue })
                let missing = before.filter { !ids.contains($0) }
                #expect(missing.isEmpty, "acknowledged before the backup but missing: \(missing.prefix(5))")
                // And nothing written after the copy was taken: the database is the copy.
                let total = log.acknowledged.withLock { $0.count }
                #expect(ids.count < total, "\(ids.count) objects after restoring, \(total) acknowledged in all")
            }
            #expect(await again.terminate() == 0)
        }
    }

    @Test("a scheduled copy is on the disk before it takes a backup's name, and the name after")
    func syncedCopies() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.backups.directory = "\(directory)/scheduled"
            let settings = configuration.backups
            let copy = "\(directory)/scheduled/development-7.sqlite"
            let recorder = SyncRecorder { FileManager.default.fileExists(atPath: copy) ? "named" : "unnamed" }
            try await Backend.withOpened(configuration, storage: try TestServer.storage(configuration), logger: TestServer.quietLogger) { backend in
                _ = try await backend.environment(.development).datastore.createMany([["text": "kept"]], in: "note", caller: .privateKey)
                let written = try await BackupRounds.round(backend: backend, settings: settings, now: 7, environments: [.development], disk: recorder.disk)
                #expect(written == [copy])
            }
            let file = try #require(recorder.firstSync(ofItemAtPath: copy), "\(recorder.synced)")
            let names = try #require(recorder.lastSync(ofItemAtPath: "\(directory)/scheduled"), "\(recorder.synced)")
            #expect(recorder.synced[file].observed == "unnamed" && !recorder.synced[file].isDirectory)
            #expect(file < names && recorder.synced[names].observed == "named")
            #expect(try SQLiteStorageEngine.integrityCheck(databaseAt: copy) == "ok")
        }
    }

    @Test("a round removes the partial copies a crash left an hour or more ago, deploy --drop's too; one still being written, and names not its own, stay")
    func abandonedPartials() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.backups.directory = "\(directory)/scheduled"
            let settings = configuration.backups
            for folder in ["scheduled", "backups"] {
                try FileManager.default.createDirectory(atPath: "\(directory)/\(folder)", withIntermediateDirectories: true)
            }
            let uuid = UUID().uuidString
            let abandoned = ["scheduled/.development-1.sqlite.\(uuid).partial", "backups/.production-2.before-drop.sqlite.\(uuid).partial"]
            // Not a copy's (the directory may be shared with other tools), or not abandoned.
            let kept = [
                "scheduled/.development-3.sqlite.\(uuid).partial", "scheduled/.other.sqlite.\(uuid).partial", "scheduled/development-4.sqlite.partial",
                "scheduled/.development-5.sqlite.not-a-uuid.partial", "scheduled/.notes.partial",
            ]
            for name in abandoned + kept {
                try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
            }
            let twoHoursAgo = Date().addingTimeInterval(-2 * 3600)
            for name in abandoned + kept.dropFirst() {
                try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: "\(directory)/\(name)")
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            try await Backend.withOpened(configuration, storage: try TestServer.storage(configuration), logger: TestServer.quietLogger) { backend in
                _ = try await BackupRounds.round(backend: backend, settings: settings, now: now, environments: [.development])
            }
            let left = try ["scheduled", "backups"].flatMap { folder in
                try FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(folder)").map { "\(folder)/\($0)" }
            }
            #expect(Set(left) == Set(kept + ["scheduled/development-\(now).sqlite"]), "\(left.sorted())")
        }
    }

    @Test("backup --out and restore: each copy is on the disk before it takes its name, and the name after")
    func syncedBackupAndRestore() async throws {
        try await TestServer.withDataDirectory { directory in
            let configuration = TestServer.configuration(dataDirectory: directory)
            try await Backend.withOpened(configuration, storage: try TestServer.storage(configuration), logger: TestServer.quietLogger) { backend in
                _ = try await backend.environment(.development).datastore.createMany([["text": "kept"]], in: "note", caller: .privateKey)
            }
            let copy = "\(directory)/copy.sqlite"
            let backups = SyncRecorder { FileManager.default.fileExists(atPath: copy) ? "named" : "unnamed" }
            #expect(try BackupTool.backup(configuration: configuration, environment: .development, to: copy, disk: backups.disk) == "ok")
            let file = try #require(backups.firstSync(ofItemAtPath: copy), "\(backups.synced)")
            let names = try #require(backups.lastSync(ofItemAtPath: directory), "\(backups.synced)")
            #expect(backups.synced[file].observed == "unnamed" && file < names && backups.synced[names].observed == "named")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".partial") }.isEmpty)

            // The database in place is the copy's inode once restored: synced before the rename.
            let database = BackupTool.databasePath(configuration: configuration, environment: .development)
            let before = SyncRecorder.inode(ofItemAtPath: database)
            let restores = SyncRecorder { SyncRecorder.inode(ofItemAtPath: database) == before ? "old" : "restored" }
            #expect(try BackupTool.restore(configuration: configuration, environment: .development, from: copy, disk: restores.disk) != nil)
            let restored = try #require(restores.firstSync(ofItemAtPath: database), "\(restores.synced)")
            let switched = try #require(restores.lastSync(ofItemAtPath: directory), "\(restores.synced)")
            #expect(restores.synced[restored].observed == "old" && restored < switched && restores.synced[switched].observed == "restored")
            #expect(try SQLiteStorageEngine.integrityCheck(databaseAt: database) == "ok")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".partial") || $0.hasSuffix(".restoring") }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("a scheduled round stopped midway leaves only whole copies, no more than `keep` of them")
    func cancelledRound() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.backups.keep = 1
            configuration.backups.directory = "\(directory)/scheduled"
            let settings = configuration.backups
            try await Backend.withOpened(configuration, storage: try TestServer.storage(configuration), logger: TestServer.quietLogger) { backend in
                // A few megabytes, so that a copy takes long enough to be stopped in the middle.
                let store = backend.environment(.development).datastore
                for batch in 0..<20 {
                    let objects: [JSONObject] = (0..<500).map { ["text": .string(String(repeating: "x", count: 400) + "\(batch)-\($0)")] }
                    _ = try await store.createMany(objects.map(JSONValue.object), in: "bulk", caller: .privateKey)
                }
                // Stopped after a growing delay: before, during and after a copy.
                for (round, delay) in [0, 1, 2, 5, 10, 20, 50, 100, 200].enumerated() {
                    let task = Task { try await BackupRounds.round(backend: backend, settings: settings, now: Int64(round)) }
                    try await Task.sleep(for: .milliseconds(delay))
                    task.cancel()
                    _ = try? await task.value
                }
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: "\(directory)/scheduled")
            #expect(files.filter { $0.hasPrefix("development-") }.count <= 1, "\(files)")
            #expect(!files.contains { $0.hasSuffix(".partial") }, "\(files)")
            for name in files where name.hasSuffix(".sqlite") {
                #expect(try SQLiteStorageEngine.integrityCheck(databaseAt: "\(directory)/scheduled/\(name)") == "ok", "\(name)")
            }
        }
    }

    @Test("scheduled backups are written every interval and rotated to the newest `keep`")
    func scheduledRotation() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.backups.intervalSeconds = 1
            configuration.backups.keep = 2
            configuration.backups.directory = "\(directory)/scheduled"
            let (logger, store) = CapturingLogHandler.logger()
            try await TestServer.run(configuration: configuration, logger: logger) { client in
                _ = try await client.post("/todo", ["title": "kept in every copy"])
                // Three rounds at least, so that rotation has had something to delete.
                let rounds = try await eventually(seconds: 60) { store.all.filter { $0.message == "Backup written" }.count >= 3 }
                #expect(rounds)
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: "\(directory)/scheduled").sorted()
            #expect(files.filter { $0.hasPrefix("development-") }.count == 2, "\(files)")
            #expect(files.filter { $0.hasPrefix("production-") }.count == 2, "\(files)")
            let newest = try #require(files.last { $0.hasPrefix("development-") })
            #expect(try SQLiteStorageEngine.integrityCheck(databaseAt: "\(directory)/scheduled/\(newest)") == "ok")
        }
    }
}
