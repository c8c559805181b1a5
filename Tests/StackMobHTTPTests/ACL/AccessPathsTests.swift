import StackMobCore
import StackMobTestSupport
import Testing

/// Permissions on the paths beyond plain CRUD: roles in `aclrole`, nested upserts, the
/// related-object endpoints, `loggedInUser` (PROTOCOL §12, D13, D14).
@Suite("Access control: roles, nested upserts, related objects, loggedInUser")
struct AccessPathsTests {
    @Test("roles are seeded from configuration, idempotently, and editable with the private key only")
    func roles() async throws {
        let clock = ManualClock()
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.development.access = AccessPolicy(schemas: ["secret": SchemaPermissions(all: .role("admin"))], roles: ["admin": ["alice"]])
            try await TestServer.run(configuration: configuration, clock: clock) { client in
                let fixture = try await ACLFixture.make(client, clock: clock, users: ["alice": [:], "bob": [:]])
                let role = try await fixture.send(.privateKey, .get, "/aclrole/admin")
                #expect(role.status == .ok && role.object?["users"] == ["alice"])
                #expect(try await fixture.send(.user("alice"), .post, "/secret", json: ["secret_id": "s1"]).status == .created)
                let refused = try await fixture.send(.user("bob"), .get, "/secret/s1")
                #expect(refused.status == .unauthorized && refused.object == ["error": "Insufficient authorization"])
                let bobList = try await fixture.send(.user("bob"), .get, "/secret")
                #expect(bobList.status == .unauthorized)

                // Only the private key may edit roles.
                for caller in [ACLCaller.anonymous, .user("bob"), .user("alice")] {
                    let edit = try await fixture.send(caller, .put, "/aclrole/admin/users", json: ["bob"])
                    #expect(edit.status == .unauthorized && edit.object == ["error": "Insufficient authorization"], "\(caller)")
                    #expect(try await fixture.send(caller, .get, "/aclrole/admin").status == .unauthorized)
                }
                let added = try await fixture.send(.privateKey, .put, "/aclrole/admin/users", json: ["bob"])
                #expect(added.status == .ok && added.object?["users"] == ["alice", "bob"])
                #expect(try await fixture.send(.user("bob"), .get, "/secret/s1").status == .ok)
                let newRole = try await fixture.send(.privateKey, .post, "/aclrole", json: ["aclrole_id": "editor", "users": ["bob"]])
                #expect(newRole.status == .created)
            }
            // A restart seeds again without losing members added through the API.
            try await TestServer.run(configuration: configuration, clock: clock) { client in
                let fixture = ACLFixture(client: client, clock: clock, sessions: [:])
                let role = try await fixture.send(.privateKey, .get, "/aclrole/admin")
                #expect(role.object?["users"] == ["alice", "bob"])
                let roles = try await fixture.send(.privateKey, .get, "/aclrole")
                #expect(roles.array?.count == 2)
            }
        }
    }

    @Test("a nested upsert checks every schema it touches, and writes nothing when one refuses")
    func nestedUpsert() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { configuration in
            configuration.development.access = AccessPolicy(schemas: [
                "author": SchemaPermissions(create: .privateKey),
                "book": SchemaPermissions(update: .owner),
            ])
        }, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: ["alice": [:], "bob": [:]])
            let refused = try await fixture.send(
                .user("alice"), .post, "/book", json: ["book_id": "b1", "author": ["author_id": "a1", "name": "X"]],
                headers: ["X-StackMob-Relations": "author=author"])
            #expect(refused.status == .unauthorized && refused.object == ["error": "Insufficient authorization"])
            #expect(try await fixture.send(.privateKey, .get, "/book/b1").status == .notFound, "nothing was written")

            let created = try await fixture.send(.user("alice"), .post, "/book", json: ["book_id": "b1", "title": "mine"], headers: ["X-StackMob-Relations": ""])
            #expect(created.status == .created)
            // bob's upsert of alice's book is an update he may not make.
            let hijack = try await fixture.send(
                .user("bob"), .post, "/shelf", json: ["shelf_id": "s1", "books": [["book_id": "b1", "title": "stolen"]]],
                headers: ["X-StackMob-Relations": "books=book"])
            #expect(hijack.status == .notFound && hijack.object == ["error": "object instance does not exist"])
            #expect(try await fixture.send(.privateKey, .get, "/book/b1").object?["title"] == "mine")
            #expect(try await fixture.send(.privateKey, .get, "/shelf/s1").status == .notFound)
            // The owner may.
            let own = try await fixture.send(
                .user("alice"), .post, "/shelf", json: ["shelf_id": "s1", "books": [["book_id": "b1", "title": "renamed"]]],
                headers: ["X-StackMob-Relations": "books=book"])
            #expect(own.status == .created)
            #expect(try await fixture.send(.privateKey, .get, "/book/b1").object?["title"] == "renamed")
        }
    }

    @Test("related-object endpoints: update on the parent, create on the target, delete on the target to cascade")
    func relatedObjects() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { configuration in
            configuration.development.access = AccessPolicy(schemas: [
                "list": SchemaPermissions(update: .loggedIn),
                "item": SchemaPermissions(create: .loggedIn, delete: .notAllowed),
            ])
            configuration.development.relationships = ["list": ["items": .relation(target: "item", toMany: true)]]
        }, clock: clock) { client in
            let fixture = try await ACLFixture.make(client, clock: clock, users: ["alice": [:]])
            #expect(try await fixture.send(.anonymous, .post, "/list", json: ["list_id": "l1"]).status == .created)
            let anonymous = try await fixture.send(.anonymous, .post, "/list/l1/items", json: [["name": "milk"]])
            #expect(anonymous.status == .unauthorized && anonymous.object == ["error": "Insufficient authorization"])
            let created = try await fixture.send(.user("alice"), .post, "/list/l1/items", json: [["item_id": "i1", "name": "milk"]])
            #expect(created.status == .ok && created.object?["succeeded"] == ["i1"])
            let appendAnonymous = try await fixture.send(.anonymous, .put, "/list/l1/items", json: ["i2"])
            #expect(appendAnonymous.status == .unauthorized)
            // Cascading needs delete on item, which is Not Allowed.
            let cascade = try await fixture.send(.user("alice"), .delete, "/list/l1/items/i1", headers: ["X-StackMob-CascadeDelete": "true"])
            #expect(cascade.status == .methodNotAllowed && cascade.object == ["error": "Invalid HTTP method"])
            #expect(try await fixture.send(.privateKey, .get, "/list/l1").object?["items"] == ["i1"], "nothing was removed")
            let unlink = try await fixture.send(.user("alice"), .delete, "/list/l1/items/i1")
            #expect(unlink.status == .ok)
            #expect(try await fixture.send(.privateKey, .get, "/item/i1").status == .ok)
        }
    }

    @Test("loggedInUser: the user schema's read level applies, and a user object owns itself")
    func loggedInUser() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { configuration in
            configuration.development.access = AccessPolicy(schemas: [
                "user": SchemaPermissions(create: .open, read: .owner, update: .owner, delete: .privateKey),
            ])
        }, clock: clock) { client in
            // Sign-up is anonymous (create is open), so sm_owner is unset.
            #expect(try await client.post("/user", ["username": "alice", "password": "pw-alice"]).status == .created)
            #expect(try await client.post("/user", ["username": "bob", "password": "pw-bob"]).status == .created)
            let sessions = [
                "alice": try await client.login([("username", "alice"), ("password", "pw-alice")]),
                "bob": try await client.login([("username", "bob"), ("password", "pw-bob")]),
            ]
            let fixture = ACLFixture(client: client, clock: clock, sessions: sessions)
            let me = try await fixture.send(.user("alice"), .get, "/user/loggedInUser")
            #expect(me.status == .ok && me.object?["username"] == "alice" && me.object?["password"] == nil)
            let own = try await fixture.send(.user("alice"), .put, "/user/alice", json: ["nickname": "al"])
            #expect(own.status == .ok)
            let other = try await fixture.send(.user("bob"), .get, "/user/alice")
            #expect(other.status == .notFound && other.object == ["error": "object instance does not exist"])
            let list = try await fixture.send(.user("bob"), .get, "/user")
            #expect(list.array?.compactMap { $0.objectValue?["username"] } == ["bob"])
            #expect(try await fixture.send(.anonymous, .get, "/user").status == .unauthorized)
            let delete = try await fixture.send(.user("alice"), .delete, "/user/alice")
            #expect(delete.status == .unauthorized)
        }
    }

    @Test("owner relation: the owner's friends see her objects; production, where nothing is inferred")
    func ownerRelation() async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: { configuration in
            configuration.production.access = AccessPolicy(schemas: ["post": SchemaPermissions(read: .ownerRelation("friends"))])
            configuration.production.relationships = ["user": ["friends": .relation(target: "user", toMany: true)], "post": ["editor": .relation(target: "user", toMany: false)]]
        }, clock: clock) { client in
            let production = client.production()
            for (name, friends) in [("olivia", ["fred"]), ("fred", []), ("eve", [])] {
                let created = try await production.post("/user", ["username": .string(name), "password": .string("pw-\(name)"), "friends": .array(friends.map(JSONValue.string))])
                #expect(created.status == .created, "\(created.text)")
            }
            var sessions: [String: MACSession] = [:]
            for name in ["olivia", "fred", "eve"] {
                sessions[name] = try await production.login([("username", name), ("password", "pw-\(name)")])
            }
            let fixture = ACLFixture(client: production, clock: clock, sessions: sessions)
            let post = try await fixture.send(.user("olivia"), .post, "/post", json: ["post_id": "p1"])
            #expect(post.status == .created && post.object?["sm_owner"] == "user/olivia")
            #expect(try await fixture.send(.user("fred"), .get, "/post/p1").status == .ok)
            let eve = try await fixture.send(.user("eve"), .get, "/post/p1")
            #expect(eve.status == .notFound && eve.object == ["error": "object instance does not exist"])
            #expect(try await fixture.send(.user("eve"), .get, "/post").array == [])
            // Even the owner is not her own friend: the level is exactly "friends of the owner".
            #expect(try await fixture.send(.user("olivia"), .get, "/post").array == [])
        }
    }
}
