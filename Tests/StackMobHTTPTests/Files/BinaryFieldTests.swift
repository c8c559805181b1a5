import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

@Suite("Binary fields (PROTOCOL §7, D32)")
struct BinaryFieldTests {
    static func envelope(_ bytes: [UInt8], filename: String, type: String = "image/png") -> String {
        "Content-Type: \(type)\nContent-Disposition: attachment; filename=\(filename)\nContent-Transfer-Encoding: base64\n\n"
            + Data(bytes).base64EncodedString()
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The path of a file URL on the test server.
    static func path(of url: String) throws -> String {
        try #require(URLComponents(string: url)?.percentEncodedPath)
    }

    @Test(
        "uploaded files are synced to the disk before the write that names them commits when commits are (storage.synchronous: full, the default), not with normal",
        arguments: [StorageSettings.Durability.full, .normal])
    func filesAsDurableAsCommits(durability: StorageSettings.Durability) async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.durability = durability
            try await Backend.withOpened(configuration, storage: try TestServer.storage(configuration), logger: TestServer.quietLogger) { backend in
                let store = try #require(backend.files as? LocalFileStore)
                #expect(store.durable == (durability == .full))
            }
        }
    }

    @Test("a 1 MB file round-trips byte-identical, ranges work, replacing and deleting remove the files")
    func megabyteLifecycle() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let original = Self.randomBytes(1024 * 1024)
                let created = try await client.create("photo", ["title": "cat", "pic": .string(Self.envelope(original, filename: "cat.png"))])
                let id = try #require(created["photo_id"]?.stringValue)
                let url = try #require(created["pic"]?.stringValue)
                #expect(url.hasPrefix("http://"))
                #expect(url.hasSuffix("/_files/development/photo/\(id)/pic/cat.png"))
                // The stored object says the same, and the field is typed binary.
                #expect(try await client.get("/photo/\(id)").object?["pic"] == .string(url))
                #expect(try await client.get("/listapi").object?["schemas"]?.objectValue?["photo"]?.objectValue?["pic"] == .string("binary"))

                // Public: no API key needed.
                let download = try await client.withoutKey.get(try Self.path(of: url))
                #expect(download.status == .ok)
                #expect(download.body == original)
                #expect(download.header("Content-Type") == "image/png")
                #expect(download.header("Content-Length") == "\(original.count)")
                let etag = try #require(download.header("ETag"))
                #expect(try await client.withoutKey.get(try Self.path(of: url), headers: ["If-None-Match": etag]).status == .notModified)

                let range = try await client.withoutKey.get(try Self.path(of: url), headers: ["Range": "bytes=1000-1999"])
                #expect(range.status == .partialContent)
                #expect(range.body == Array(original[1000...1999]))
                #expect(range.header("Content-Range") == "bytes 1000-1999/\(original.count)")
                let tail = try await client.withoutKey.get(try Self.path(of: url), headers: ["Range": "bytes=-10"])
                #expect(tail.body == Array(original.suffix(10)))
                let beyond = try await client.withoutKey.get(try Self.path(of: url), headers: ["Range": "bytes=2000000-2000010"])
                #expect(beyond.status == .rangeNotSatisfiable)
                #expect(beyond.header("Content-Range") == "bytes */\(original.count)")

                let objectDirectory = "\(directory)/files/development/photo/\(id)"
                #expect(FileManager.default.fileExists(atPath: "\(objectDirectory)/pic/cat.png"))

                // Replace: the new file is served, the old one is gone.
                let replacement = Self.randomBytes(5000)
                let updated = try await client.put("/photo/\(id)", ["pic": .string(Self.envelope(replacement, filename: "dog.jpg", type: "image/jpeg"))])
                #expect(updated.status == .ok)
                let newURL = try #require(updated.object?["pic"]?.stringValue)
                #expect(newURL.hasSuffix("/pic/dog.jpg"))
                let newDownload = try await client.withoutKey.get(try Self.path(of: newURL))
                #expect(newDownload.body == replacement)
                #expect(newDownload.header("Content-Type") == "image/jpeg")
                #expect(try await client.withoutKey.get(try Self.path(of: url)).status == .notFound)
                #expect(!FileManager.default.fileExists(atPath: "\(objectDirectory)/pic/cat.png"))

                // Same file name again: a new URL (caches keyed by URL never serve the old bytes,
                // and the old file stays intact until the write commits); the old one is gone.
                let third = Self.randomBytes(300)
                let again = try await client.put("/photo/\(id)", ["pic": .string(Self.envelope(third, filename: "dog.jpg", type: "image/jpeg"))])
                let thirdURL = try #require(again.object?["pic"]?.stringValue)
                #expect(thirdURL.hasSuffix("/pic/dog-1.jpg"))
                #expect(try await client.withoutKey.get(try Self.path(of: thirdURL)).body == third)
                #expect(try await client.withoutKey.get(try Self.path(of: newURL)).status == .notFound)

                // Delete the object: its files go with it.
                #expect(try await client.delete("/photo/\(id)").status == .ok)
                #expect(try await client.withoutKey.get(try Self.path(of: thirdURL)).status == .notFound)
                #expect(!FileManager.default.fileExists(atPath: objectDirectory))
            }
        }
    }

    @Test("bad base64 or a malformed envelope is a 400 and stores nothing")
    func malformed() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let badBase64 = "Content-Type: image/png\nContent-Disposition: attachment; filename=a.png\nContent-Transfer-Encoding: base64\n\n@@@not base64"
                let response = try await client.post("/photo", ["photo_id": "p1", "pic": .string(badBase64)])
                #expect(response.status == .badRequest)
                #expect(response.error?.contains("base64") == true)
                for text in [
                    "Content-Type: image/png\nContent-Transfer-Encoding: base64\n\nAAAA",  // no file name
                    "Content-Type: image/png; no blank line AAAA",
                    "Content-Type: image/png\nContent-Disposition: attachment; filename=a.png\nContent-Transfer-Encoding: quoted-printable\n\nAAAA",
                ] {
                    let refused = try await client.post("/photo", ["photo_id": "p2", "pic": .string(text)])
                    #expect(refused.status == .badRequest)
                    #expect(refused.error?.hasPrefix("pic is not a valid file") == true)
                }
                #expect(try await client.get("/photo/p1").status == .notFound)
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/files/development/photo/p1"))
            }
        }
    }

    @Test("files over files.max_bytes are refused with 413; a failed write removes the file it stored")
    func limitsAndFailedWrites() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.files.maxBytes = 1000
            try await TestServer.run(configuration: configuration) { client in
                let tooLarge = try await client.post("/photo", ["pic": .string(Self.envelope(Self.randomBytes(1001), filename: "big.png"))])
                #expect(tooLarge.status == .contentTooLarge)
                _ = try await client.create("photo", ["photo_id": "p1", "rating": 3])
                // The upload succeeds, then the write fails on the type check: no orphan file.
                let failed = try await client.put("/photo/p1", ["rating": "high", "pic": .string(Self.envelope([1, 2, 3], filename: "x.png"))])
                #expect(failed.status == .badRequest)
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/files/development/photo/p1/pic/x.png"))
                // A duplicate create must not touch the existing object's file.
                let stored = try await client.put("/photo/p1", ["pic": .string(Self.envelope([9, 9], filename: "keep.png"))])
                let url = try #require(stored.object?["pic"]?.stringValue)
                let duplicate = try await client.post("/photo", ["photo_id": "p1", "pic": .string(Self.envelope([7], filename: "keep.png"))])
                #expect(duplicate.status == .conflict)
                #expect(try await client.withoutKey.get(try Self.path(of: url)).body == [9, 9])
            }
        }
    }

    @Test("X-StackMob-FieldTypes declares binary fields; URLs are stored as-is; other string fields keep envelopes verbatim")
    func typesAndPlainValues() async throws {
        try await TestServer.run { client in
            let plain = "http://cdn.example.com/a.png"
            let created = try await client.post(
                "/photo", ["photo_id": "p1", "pic": .string(plain), "note": "x"], headers: ["X-StackMob-FieldTypes": "pic=binary&where=geopoint"])
            #expect(created.status == .created)
            #expect(created.object?["pic"] == .string(plain))
            let fields = try await client.get("/listapi").object?["schemas"]?.objectValue?["photo"]?.objectValue
            #expect(fields?["pic"] == .string("binary"))
            #expect(fields?["note"] == .string("string"))
            // `note` is a string field: an envelope written to it is just text (§7).
            let text = Self.envelope([1, 2, 3], filename: "n.txt", type: "text/plain")
            let updated = try await client.put("/photo/p1", ["note": .string(text)])
            #expect(updated.object?["note"] == .string(text))
            // Uploading into the declared field now works.
            let uploaded = try await client.put("/photo/p1", ["pic": .string(Self.envelope([4, 5], filename: "b.png"))])
            #expect(uploaded.object?["pic"]?.stringValue?.hasSuffix("/_files/development/photo/p1/pic/b.png") == true)
        }
    }

    @Test("a configured files base URL gives exactly <base>/<schema>/<id>/<field>/<filename> (D32), per environment; odd ids stay inside their directory")
    func baseURLAndEscaping() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.filesBaseURL = "https://files.example.com/app/"
            configuration.production.filesBaseURL = "https://cdn.example.com/live"
            configuration.production.schemaInference = true
            configuration.development.userSchemas = [UserSchema(), UserSchema(name: "user2")]
            try await TestServer.run(configuration: configuration) { client in
                let created = try await client.create("photo", ["photo_id": "../x y", "pic": .string(Self.envelope([1], filename: "../../evil name.png"))])
                #expect(created["pic"] == .string("https://files.example.com/app/photo/..%2Fx%20y/pic/file.._.._evil_name.png"))
                let local = try await client.withoutKey.get("/_files/development/photo/..%2Fx%20y/pic/file.._.._evil_name.png")
                #expect(local.body == [1])
                // The Java SDK's postWithBinaryFile: a user `bob` of `user2` with a photo.
                let bob = try await client.create(
                    "user2", ["username": "bob", "password": "pw", "photo": .string(Self.envelope([7, 7], filename: "test.jpg", type: "image/jpeg"))])
                #expect(bob["photo"] == .string("https://files.example.com/app/user2/bob/photo/test.jpg"))
                // Replacing removes the file the configured URL named; production has its own base.
                #expect(try await client.put("/user2/bob", ["photo": .string(Self.envelope([8], filename: "next.jpg"))]).status == .ok)
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/files/development/user2/bob/photo/test.jpg"))
                #expect(FileManager.default.fileExists(atPath: "\(directory)/files/development/user2/bob/photo/next.jpg"))
                let live = try await client.production().create("photo", ["photo_id": "p", "pic": .string(Self.envelope([2], filename: "a.png"))])
                #expect(live["pic"] == .string("https://cdn.example.com/live/photo/p/pic/a.png"))
                #expect(try await client.withoutKey.get("/_files/production/photo/p/pic/a.png").body == [2])
                // Deleting removes the file too.
                #expect(try await client.delete("/user2/bob").status == .ok)
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/files/development/user2/bob/photo/next.jpg"))
            }
        }
    }
}
