import Foundation
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

        try PrivateFiles.write(bytes, to: path)

        #expect(FileManager.default.contents(atPath: path).map(Array.init) == bytes)
        #expect(PrivateFiles.mode(ofItemAtPath: path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["upload.bin"])
    }
}
