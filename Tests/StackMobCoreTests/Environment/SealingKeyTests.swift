import Foundation
import StackMobCore
import Testing

@Suite("SealingKey: the seal.key of the data directory")
struct SealingKeyTests {
    static func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-seal-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try body(directory)
    }

    @Test("made once, 0600, and the same key at the next start; sealed values differ each time and open")
    func madeOnce() throws {
        try Self.withDirectory { directory in
            let first = try SealingKey.resolve(dataDirectory: directory)
            let path = SealingKey.path(dataDirectory: directory)
            #expect(PrivateFiles.mode(ofItemAtPath: path) == 0o600)
            let sealed = try first.seal("provider-token")
            let sealedAgain = try first.seal("provider-token")
            #expect(!sealed.contains("provider-token") && sealed != sealedAgain)
            let again = try SealingKey.resolve(dataDirectory: directory)
            #expect(again.open(sealed) == "provider-token")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["seal.key"])
        }
    }

    @Test("a value stored in clear reads as it is; one sealed with another key, or altered, does not open")
    func clearAndForeign() throws {
        let sealed = try Self.withDirectory { try SealingKey.resolve(dataDirectory: $0).seal("provider-token") }
        try Self.withDirectory { directory in
            let key = try SealingKey.resolve(dataDirectory: directory)
            #expect(key.open("old-clear-token") == "old-clear-token")
            #expect(key.open(sealed) == nil)
            let own = try key.seal("provider-token")
            #expect(key.open(String(own.dropLast(2)) + (own.hasSuffix("AA") ? "BB" : "AA")) == nil)
        }
    }

    @Test("a seal.key that is not 32 bytes in base64 stops the start, naming the file")
    func invalidFile() throws {
        try Self.withDirectory { directory in
            let path = SealingKey.path(dataDirectory: directory)
            try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect {
                try SealingKey.resolve(dataDirectory: directory)
            } throws: { error in
                "\(error)".contains("seal.key") && "\(error)".contains("is not a seal key")
            }
        }
    }
}
