import Foundation
import Synchronization
import Testing

@testable import StackMobCore

@Suite("PrivateFiles.write: a whole file, 0600, in calls of at most writeChunk bytes")
struct PrivateFilesTests {
    @Test(
        "every byte arrives, for sizes around the chunk's and several chunks long",
        arguments: [0, 1, PrivateFiles.writeChunk - 1, PrivateFiles.writeChunk, PrivateFiles.writeChunk + 1,
                    4 * PrivateFiles.writeChunk + 17])
    func wholeFile(size: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-private-\(UUID())").path
        try PrivateFiles.createDirectory(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A pattern that differs from one chunk to the next (its 64 KiB index is added), so a
        // chunk written twice, skipped or out of place shows.
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / PrivateFiles.writeChunk) }
        let path = directory + "/upload.bin"

        try PrivateFiles.write(bytes, to: path, durable: true)

        #expect(FileManager.default.contents(atPath: path).map(Array.init) == bytes)
        #expect(PrivateFiles.mode(ofItemAtPath: path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["upload.bin"])
    }
}

/// What a durable write hands the disk: the file's bytes before its name, then the name.
@Suite("PrivateFiles: durable writes and directories")
struct PrivateFilesDurabilityTests {
    /// A descriptor synced, and what it was at that moment.
    struct Synced: Equatable {
        let isDirectory: Bool
        /// Whether the file's final path existed when it was synced.
        let pathExisted: Bool
    }

    /// Records each sync, as `fsync` would be called; `failing` makes them fail with EIO.
    final class Recorder: Sendable {
        private let recorded = Mutex<[Synced]>([])
        let path: String
        let failing: Bool

        init(path: String, failing: Bool = false) {
            self.path = path
            self.failing = failing
        }

        var synced: [Synced] { recorded.withLock { $0 } }

        /// Syncs through the recorder.
        var disk: DiskSync {
            DiskSync { [self] descriptor in
                var status = stat()
                fstat(descriptor, &status)
                let synced = Synced(isDirectory: status.st_mode & S_IFMT == S_IFDIR, pathExisted: FileManager.default.fileExists(atPath: path))
                recorded.withLock { $0.append(synced) }
                if failing {
                    errno = EIO
                    return -1
                }
                return fsync(descriptor)
            }
        }
    }

    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-durable-\(UUID())").path
        try PrivateFiles.createDirectory(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    @Test("a durable write syncs the file's bytes before it takes its name, then the directory that holds the name")
    func durableWrite() throws {
        try Self.withDirectory { directory in
            let path = directory + "/upload.bin"
            let recorder = Recorder(path: path)
            try PrivateFiles.write(Array(repeating: 7, count: 100_000), to: path, disk: recorder.disk)
            #expect(recorder.synced == [Synced(isDirectory: false, pathExisted: false), Synced(isDirectory: true, pathExisted: true)])
            #expect(FileManager.default.contents(atPath: path)?.count == 100_000)
        }
    }

    @Test("without durability the sync is off, and the file and directories are written all the same")
    func plainWrite() throws {
        #expect(DiskSync.durable(true).isOn)
        #expect(!DiskSync.durable(false).isOn)
        try Self.withDirectory { directory in
            try PrivateFiles.createDirectory(atPath: directory + "/a/b", disk: .off)
            try PrivateFiles.write([1, 2, 3], to: directory + "/a/b/upload.bin", disk: .off)
            #expect(FileManager.default.contents(atPath: directory + "/a/b/upload.bin").map(Array.init) == [1, 2, 3])
        }
    }

    @Test("a file whose bytes could not be synced is not put in place, and leaves nothing behind")
    func failedSync() throws {
        try Self.withDirectory { directory in
            let path = directory + "/upload.bin"
            let recorder = Recorder(path: path, failing: true)
            #expect(throws: PrivateFileError.self) { try PrivateFiles.write([1, 2, 3], to: path, disk: recorder.disk) }
            #expect(recorder.synced.count == 1)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("each directory made durably is synced in its parent; one that exists is left alone")
    func durableDirectories() throws {
        try Self.withDirectory { directory in
            let recorder = Recorder(path: directory + "/object/field")
            try PrivateFiles.createDirectory(atPath: directory + "/object/field", disk: recorder.disk)
            #expect(recorder.synced == [Synced(isDirectory: true, pathExisted: false), Synced(isDirectory: true, pathExisted: true)])
            try PrivateFiles.createDirectory(atPath: directory + "/object/field", disk: recorder.disk)
            #expect(recorder.synced.count == 2)
        }
    }
}
