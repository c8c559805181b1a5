import StackMobCore
import StackMobTestSupport
import Testing

/// What must NOT appear: an object hidden by the owner or relationship levels never shows up in a
/// list, a count, a `Content-Range` total, an expansion or an error body (PROTOCOL §12.2).
@Suite("Access control: hidden objects never leak")
struct HiddenObjectTests {
    static let secret = "TOPSECRET-olivia"

    static func configure(_ configuration: inout StackMobConfiguration) {
        configuration.development.access = AccessPolicy(schemas: [
            "diary": SchemaPermissions(all: .owner),
            "note": SchemaPermissions(all: .objectRelation("readers")),
        ])
        configuration.development.relationships = [
            "page": ["entry": .relation(target: "diary", toMany: false), "entries": .relation(target: "diary", toMany: true)],
            "note": ["readers": .relation(target: "user", toMany: true)],
        ]
    }

    /// olivia writes three diary entries holding the secret, eve two of her own.
    static func seed(_ fixture: ACLFixture) async throws {
        for index in 1...3 {
            let created = try await fixture.send(.user("olivia"), .post, "/diary", json: ["diary_id": .string("olivia-\(index)"), "text": .string(secret)])
            #expect(created.status == .created)
            #expect(created.object?["sm_owner"] == "user/olivia")
        }
        for index in 1...2 {
            let created = try await fixture.send(.user("eve"), .post, "/diary", json: ["diary_id": .string("eve-\(index)"), "text": "mine"])
            #expect(created.status == .created)
        }
    }

    static func assertClean(_ response: APIResponse, _ context: String) {
        #expect(!response.text.contains(secret), "\(context): \(response.text)")
        #expect(!response.text.contains("olivia-"), "\(context): \(response.text)")
    }

    @Test("lists, filtered lists, counts and Content-Range totals hold only the caller's objects")
    func lists() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: ["olivia": [:], "eve": [:]])
            try await Self.seed(fixture)

            let list = try await fixture.send(.user("eve"), .get, "/diary")
            #expect(list.status == .ok)
            #expect(Set(list.array?.compactMap { $0.objectValue?["diary_id"]?.stringValue } ?? []) == ["eve-1", "eve-2"])
            Self.assertClean(list, "list")

            // Probing by a hidden value or id finds nothing.
            let probe = try await fixture.send(.user("eve"), .get, "/diary?text=\(Self.secret)")
            #expect(probe.status == .ok && probe.array == [])
            let byID = try await fixture.send(.user("eve"), .get, "/diary?diary_id=olivia-1")
            #expect(byID.status == .ok && byID.array == [])

            // The SDKs' count: Range objects=0-0, total from Content-Range.
            let count = try await fixture.send(.user("eve"), .get, "/diary", headers: ["Range": "objects=0-0"])
            #expect(count.status == .partialContent)
            #expect(count.header("Content-Range") == "objects 0-0/2")
            Self.assertClean(count, "count")
            let ownerCount = try await fixture.send(.user("olivia"), .get, "/diary", headers: ["Range": "objects=0-0"])
            #expect(ownerCount.header("Content-Range") == "objects 0-0/3")
            let all = try await fixture.send(.privateKey, .get, "/diary", headers: ["Range": "objects=0-0"])
            #expect(all.header("Content-Range") == "objects 0-0/5")
            let window = try await fixture.send(.user("eve"), .get, "/diary", headers: ["Range": "objects=1-10"])
            #expect(window.status == .partialContent && window.array?.count == 1)
            #expect(window.header("Content-Range") == "objects 1-1/2")
            Self.assertClean(window, "window")

            // HEAD answers like the GET.
            let head = try await fixture.send(.user("eve"), .head, "/diary/olivia-1")
            #expect(head.status == .notFound)
        }
    }

    @Test("error bodies for hidden objects are the not-found texts, naming nothing")
    func errors() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: ["olivia": [:], "eve": [:]])
            try await Self.seed(fixture)
            let read = try await fixture.send(.user("eve"), .get, "/diary/olivia-1")
            #expect(read.status == .notFound && read.object == ["error": "object instance does not exist"])
            let update = try await fixture.send(.user("eve"), .put, "/diary/olivia-1", json: ["text": "hacked"])
            #expect(update.status == .notFound && update.object == ["error": "object instance does not exist"])
            let delete = try await fixture.send(.user("eve"), .delete, "/diary/olivia-1")
            #expect(delete.status == .notFound && delete.object == ["error": "This object does not exist"])
            // A hidden object answers exactly like one that does not exist.
            let missing = try await fixture.send(.user("eve"), .get, "/diary/nothing-here")
            #expect(missing.status == read.status && missing.text == read.text)
            // Upserting over a hidden object (X-StackMob-Relations, D2) is refused the same way.
            let upsert = try await fixture.send(
                .user("eve"), .post, "/diary", json: ["diary_id": "olivia-1", "text": "hacked"], headers: ["X-StackMob-Relations": ""])
            #expect(upsert.status == .notFound && upsert.object == ["error": "object instance does not exist"])
            // Related-object endpoints on a hidden parent.
            let append = try await fixture.send(.user("eve"), .put, "/diary/olivia-1/tags", json: ["x"])
            #expect(append.status == .notFound && append.object == ["error": "object instance does not exist"])
            let postRelated = try await fixture.send(.user("eve"), .post, "/diary/olivia-1/comments", json: [["text": "spam"]])
            #expect(postRelated.status == .notFound && postRelated.object == ["error": "object instance does not exist"])
            // Not even the schema: `comments` was never written (§10.4: 404).
            #expect(try await fixture.send(.privateKey, .get, "/comments").status == .notFound, "the refused POST left nothing behind")
            let remove = try await fixture.send(.user("eve"), .delete, "/diary/olivia-1/tags/x")
            #expect(remove.status == .notFound)

            // Delete by query deletes only the caller's own objects.
            let deleteAll = try await fixture.send(.user("eve"), .delete, "/diary?text%5Bne%5D=nothing")
            #expect(deleteAll.status == .ok && deleteAll.object == [:])
            let left = try await fixture.send(.privateKey, .get, "/diary")
            #expect(Set(left.array?.compactMap { $0.objectValue?["diary_id"]?.stringValue } ?? []) == ["olivia-1", "olivia-2", "olivia-3"])
            #expect(left.array?.allSatisfy { $0.objectValue?["text"] == .string(Self.secret) } == true, "nothing was changed")
        }
    }

    @Test("expansion drops related objects the caller may not read")
    func expansion() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: ["olivia": [:], "eve": [:]])
            try await Self.seed(fixture)
            let page = try await fixture.send(
                .user("eve"), .post, "/page", json: ["page_id": "p1", "entry": "olivia-1", "entries": ["olivia-2", "eve-1", "olivia-3"]])
            #expect(page.status == .created)

            for path in ["/page/p1?_expand=1", "/page?_expand=1"] {
                let expanded = try await fixture.send(.user("eve"), .get, path)
                #expect(expanded.status == .ok)
                Self.assertClean(expanded, path)
                let object = path.hasPrefix("/page/p1") ? expanded.object : expanded.array?.first?.objectValue
                #expect(object?["entry"] == nil, "\(path): \(expanded.text)")
                #expect(object?["entries"]?.arrayValue?.compactMap { $0.objectValue?["diary_id"] } == ["eve-1"], "\(path): \(expanded.text)")
            }
            // Write responses expanded on request (D36) go through the same filter.
            let written = try await fixture.send(
                .user("eve"), .post, "/page", json: ["page_id": "p2", "entry": "olivia-2", "entries": ["olivia-1", "eve-2"]],
                headers: ["X-StackMob-Expand": "1"])
            #expect(written.status == .created && written.object?["entry"] == nil)
            Self.assertClean(written, "POST expanded")
            let updated = try await fixture.send(.user("eve"), .put, "/page/p2", json: ["title": "t"], headers: ["X-StackMob-Expand": "1"])
            #expect(updated.status == .ok)
            Self.assertClean(updated, "PUT expanded")
            let headerExpanded = try await fixture.send(.user("eve"), .get, "/page/p1", headers: ["X-StackMob-Expand": "2"])
            Self.assertClean(headerExpanded, "header expand")
            // Anonymous callers may not read the diary at all: every entry is dropped.
            let anonymous = try await fixture.send(.anonymous, .get, "/page/p1?_expand=1")
            #expect(anonymous.status == .ok)
            #expect(anonymous.object?["entries"] == [])
            #expect(!anonymous.text.contains("mine"))
            // The owner sees hers.
            let owner = try await fixture.send(.user("olivia"), .get, "/page/p1?_expand=1")
            #expect(owner.object?["entry"]?.objectValue?["text"] == .string(Self.secret))
            #expect(owner.object?["entries"]?.arrayValue?.count == 2)
        }
    }

    @Test("relationship level: only users listed in the object's relation see it")
    func relationship() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: ["olivia": [:], "eve": [:], "rex": [:]])
            let created = try await fixture.send(.user("olivia"), .post, "/note", json: ["note_id": "n1", "readers": ["olivia", "rex"], "body": .string(Self.secret)])
            #expect(created.status == .created)
            for (name, visible) in [("olivia", true), ("rex", true), ("eve", false)] {
                let list = try await fixture.send(.user(name), .get, "/note")
                #expect((list.array?.count ?? -1) == (visible ? 1 : 0), "\(name): \(list.text)")
                let count = try await fixture.send(.user(name), .get, "/note", headers: ["Range": "objects=0-0"])
                #expect(count.array?.count == (visible ? 1 : 0))
                if !visible { Self.assertClean(list, name) }
            }
            // Removing rex from the relation hides it from him at once.
            let update = try await fixture.send(.user("olivia"), .put, "/note/n1", json: ["readers": ["olivia"]])
            #expect(update.status == .ok)
            #expect(try await fixture.send(.user("rex"), .get, "/note/n1").status == .notFound)
        }
    }
}
