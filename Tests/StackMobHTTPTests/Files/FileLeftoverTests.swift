import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// A crash in the middle of an upload leaves its hidden temporary file (`PrivateFiles.write`'s
/// `.<name>.<UUID>.tmp`) in the file store; nothing else ever names it.
@Suite("Files of uploads a crash cut short")
struct FileLeftoverTests {
    @Test("removed once the server starts when older than an hour; a younger one, which may be an upload under way, and the store's own files stay")
    func sweptAtStart() async throws {
        try await TestServer.withDataDirectory { directory in
            let field = directory + "/files/development/photo/p1/image"
            try FileManager.default.createDirectory(atPath: field, withIntermediateDirectories: true)
            let old = field + "/.cat.png.\(UUID().uuidString).tmp"
            let young = field + "/.dog.png.\(UUID().uuidString).tmp"
            // The store's own files: a stored file, its hidden sidecar, a name that only looks
            // like a leftover; and a stored file whose name ends like one, whose sidecar's name
            // is one.
            let uuid = UUID().uuidString
            let kept = [
                field + "/cat.png", field + "/.meta-cat.png", field + "/.cat.png.draft.tmp", field + "/x.\(uuid).tmp", field + "/.meta-x.\(uuid).tmp",
            ]
            for path in [old, young] + kept { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
            for path in [old] + kept {
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: path)
            }
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { (_: StackMobClient) async throws in
                #expect(try await eventually { !FileManager.default.fileExists(atPath: old) })
                for path in [young] + kept { #expect(FileManager.default.fileExists(atPath: path), "\(path)") }
            }
        }
    }

}
