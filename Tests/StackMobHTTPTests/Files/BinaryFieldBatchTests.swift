import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Binary fields in writes of several objects (bulk creates, nested upserts), deletes by query,
/// and failed writes that must leave the previous file intact.
@Suite("Binary fields in bulk, nested and query writes (PROTOCOL §7, §4.3, §6.5)")
struct BinaryFieldBatchTests {
    typealias Files = BinaryFieldTests

    /// The URL the stored object holds in `field`.
    static func storedURL(_ client: StackMobClient, _ path: String, _ field: String) async throws -> String {
        try #require(try await client.get(path).object?[field]?.stringValue)
    }

    /// The stored files in a field's directory, without the stores' `.meta-` sidecars.
    static func files(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test("a bulk create stores each element's file; elements that fail keep none, and an existing object's file is untouched")
    func bulkCreate() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let kept: [UInt8] = [9, 9, 9]
                let existing = try await client.create("photo", ["photo_id": "x", "rating": 3, "pic": .string(Files.envelope(kept, filename: "keep.png"))])
                let keptURL = try #require(existing["pic"]?.stringValue)

                let (a, b) = (Files.randomBytes(2000), Files.randomBytes(3000))
                let response = try await client.post("/photo", [
                    ["photo_id": "a", "pic": .string(Files.envelope(a, filename: "a.png"))],
                    ["photo_id": "b", "pic": .string(Files.envelope(b, filename: "b.jpg", type: "image/jpeg"))],
                    // A duplicate: refused by the create, its envelope never stored.
                    ["photo_id": "x", "pic": .string(Files.envelope([1], filename: "keep.png"))],
                    // Refused by the type check after its file was stored: the file goes again.
                    ["photo_id": "c", "rating": "high", "pic": .string(Files.envelope([2], filename: "c.png"))],
                    ["photo_id": "d", "title": "no file"],
                    // The same id twice: the second is refused and must not replace the first's file.
                    ["photo_id": "a", "pic": .string(Files.envelope([6, 6, 6], filename: "a.png"))],
                ])
                #expect(response.status == .ok)
                #expect(response.object?["succeeded"] == ["a", "b", "d"])
                #expect(response.object?["failed"] == ["x", "c", "a"])

                let urlA = try await Self.storedURL(client, "/photo/a", "pic")
                #expect(urlA.hasSuffix("/_files/development/photo/a/pic/a.png"))
                #expect(try await client.withoutKey.get(try Files.path(of: urlA)).body == a)
                let downloadB = try await client.withoutKey.get(try Files.path(of: try await Self.storedURL(client, "/photo/b", "pic")))
                #expect(downloadB.body == b)
                #expect(downloadB.header("Content-Type") == "image/jpeg")

                #expect(try await client.withoutKey.get(try Files.path(of: keptURL)).body == kept)
                #expect(try await Self.storedURL(client, "/photo/x", "pic") == keptURL)
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/files/development/photo/c"))
                #expect(try Self.files(in: "\(directory)/files/development/photo/x/pic") == ["keep.png"])
            }
        }
    }

    @Test("a malformed envelope in one element of a bulk create refuses the whole request and stores nothing")
    func bulkMalformed() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let response = try await client.post("/photo", [
                    ["photo_id": "a", "pic": .string(Files.envelope([1, 2], filename: "a.png"))],
                    ["photo_id": "b", "pic": "Content-Type: image/png\nContent-Disposition: attachment; filename=b.png\nContent-Transfer-Encoding: base64\n\n@@@"],
                ])
                #expect(response.status == .badRequest)
                #expect(response.error?.contains("base64") == true)
                #expect(try await client.get("/photo/a").status == .notFound)
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/files/development/photo/a"))
            }
        }
    }

    @Test("related objects in X-StackMob-Relations store their files; replacing one removes the old file; a failed graph keeps the old file")
    func nestedObjects() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let face = Files.randomBytes(4000)
                let icon = Files.randomBytes(500)
                let created = try await client.post(
                    "/article",
                    [
                        "article_id": "a1", "title": "hello",
                        "author": ["person_id": "p1", "name": "Ann", "avatar": .string(Files.envelope(face, filename: "face.png"))],
                        "tags": [["tag_id": "t1", "icon": .string(Files.envelope(icon, filename: "icon.gif", type: "image/gif"))], ["tag_id": "t2"]],
                    ],
                    headers: ["X-StackMob-Relations": "author=person&tags=tag"])
                #expect(created.status == .created)
                #expect(created.object?["author"] == "p1")

                let avatarURL = try await Self.storedURL(client, "/person/p1", "avatar")
                #expect(avatarURL.hasSuffix("/_files/development/person/p1/avatar/face.png"))
                #expect(try await client.withoutKey.get(try Files.path(of: avatarURL)).body == face)
                let iconURL = try await Self.storedURL(client, "/tag/t1", "icon")
                let iconDownload = try await client.withoutKey.get(try Files.path(of: iconURL))
                #expect(iconDownload.body == icon)
                #expect(iconDownload.header("Content-Type") == "image/gif")
                #expect(try await client.get("/listapi").object?["schemas"]?.objectValue?["person"]?.objectValue?["avatar"] == "binary")

                // The upsert replaces the author's avatar under the same name: a new URL, the old file gone.
                let newFace = Files.randomBytes(1000)
                let updated = try await client.post(
                    "/article", ["article_id": "a1", "author": ["person_id": "p1", "avatar": .string(Files.envelope(newFace, filename: "face.png"))]],
                    headers: ["X-StackMob-Relations": "author=person"])
                #expect(updated.status == .ok)
                let newAvatarURL = try await Self.storedURL(client, "/person/p1", "avatar")
                #expect(newAvatarURL != avatarURL)
                #expect(try await client.withoutKey.get(try Files.path(of: newAvatarURL)).body == newFace)
                #expect(try await client.withoutKey.get(try Files.path(of: avatarURL)).status == .notFound)

                // One invalid child fails the whole graph: the avatar stays as it was, no new file is left.
                let failed = try await client.post(
                    "/article",
                    [
                        "article_id": "a1",
                        "author": ["person_id": "p1", "avatar": .string(Files.envelope([7, 7], filename: "other.png"))],
                        "tags": [["tag_id": "t1", "icon": 12]],
                    ],
                    headers: ["X-StackMob-Relations": "author=person&tags=tag"])
                #expect(failed.status == .badRequest)
                #expect(try await Self.storedURL(client, "/person/p1", "avatar") == newAvatarURL)
                #expect(try await client.withoutKey.get(try Files.path(of: newAvatarURL)).body == newFace)
                #expect(try Self.files(in: "\(directory)/files/development/person/p1/avatar") == ["face-1.png"])
            }
        }
    }

    @Test("a delete by query removes the files of exactly the deleted objects")
    func deleteByQuery() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                var urls: [Int: String] = [:]
                for rating in 1...3 {
                    let object = try await client.create(
                        "photo", ["photo_id": .string("p\(rating)"), "rating": .integer(Int64(rating)), "pic": .string(Files.envelope([UInt8(rating)], filename: "f.png"))])
                    urls[rating] = try #require(object["pic"]?.stringValue)
                }
                #expect(try await client.delete("/photo?rating%5Blt%5D=3").status == .ok)
                for rating in 1...2 {
                    #expect(try await client.withoutKey.get(try Files.path(of: urls[rating]!)).status == .notFound)
                    #expect(!FileManager.default.fileExists(atPath: "\(directory)/files/development/photo/p\(rating)"))
                }
                #expect(try await client.withoutKey.get(try Files.path(of: urls[3]!)).body == [3])
            }
        }
    }

    @Test("a failed update that sends the same file name leaves the previous bytes served")
    func failedReplacementKeepsBytes() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let original = Files.randomBytes(700)
                let object = try await client.create("photo", ["photo_id": "p1", "rating": 1, "pic": .string(Files.envelope(original, filename: "cat.png"))])
                let url = try #require(object["pic"]?.stringValue)
                let refused = try await client.put("/photo/p1", ["rating": "high", "pic": .string(Files.envelope([1, 2, 3], filename: "cat.png"))])
                #expect(refused.status == .badRequest)
                #expect(try await client.withoutKey.get(try Files.path(of: url)).body == original)
                #expect(try Self.files(in: "\(directory)/files/development/photo/p1/pic") == ["cat.png"])
            }
        }
    }
}
