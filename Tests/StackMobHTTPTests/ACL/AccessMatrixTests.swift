import HTTPTypes
import StackMobCore
import StackMobTestSupport
import Testing

/// Every permission level × caller (anonymous, logged-in stranger, entitled user, private key) ×
/// verb: status and exact body of every cell (PROTOCOL §12.2), and for every refused update or
/// delete, that the object was left as it was. Through real HTTP, and again in process
/// (`TestServer.Transport`).
@Suite("Access control: the access matrix (§12.2)")
struct AccessMatrixTests {
    enum Kind: String, CaseIterable { case anonymous, stranger, entitled, privateKey }
    enum Outcome: Equatable { case allowed, unauthorized, methodNotAllowed, hidden }

    /// Schema → (level, the entitled user).
    static let levels: [(schema: String, level: PermissionLevel, entitled: String)] = [
        ("open_s", .open, "olivia"),
        ("private_s", .privateKey, "olivia"),
        ("logged_s", .loggedIn, "olivia"),
        ("owner_s", .owner, "olivia"),
        ("role_s", .role("editor"), "rita"),
        ("rel_s", .objectRelation("collaborators"), "rex"),
        ("ownrel_s", .ownerRelation("friends"), "fred"),
        ("none_s", .notAllowed, "olivia"),
    ]

    static func configure(_ configuration: inout StackMobConfiguration) {
        var schemas: [String: SchemaPermissions] = [:]
        for (schema, level, _) in levels { schemas[schema] = SchemaPermissions(all: level) }
        configuration.development.access = AccessPolicy(schemas: schemas, roles: ["editor": ["rita"]])
        configuration.development.relationships = [
            "rel_s": ["collaborators": .relation(target: "user", toMany: true)],
            "user": ["friends": .relation(target: "user", toMany: true)],
        ]
    }

    /// The table of §12.2.
    static func expected(_ level: PermissionLevel, _ kind: Kind, _ verb: AccessVerb) -> Outcome {
        if kind == .privateKey { return .allowed }
        switch level {
        case .open: return .allowed
        case .privateKey: return .unauthorized
        case .notAllowed: return .methodNotAllowed
        case .loggedIn: return kind == .anonymous ? .unauthorized : .allowed
        case .role: return kind == .entitled ? .allowed : .unauthorized
        case .owner, .objectRelation, .ownerRelation:
            switch kind {
            case .anonymous: return .unauthorized
            case .stranger: return verb == .create ? .allowed : .hidden
            case .entitled, .privateKey: return .allowed
            }
        }
    }

    @Test("every level × caller × verb answers the status and exact body of §12.2", arguments: TestServer.Transport.allCases)
    func matrix(transport: TestServer.Transport) async throws {
        let clock = ManualClock()
        try await TestServer.run(configure: Self.configure, clock: clock, transport: transport) { client in
            let fixture = try await ACLFixture.make(
                client, clock: clock,
                users: ["olivia": ["friends": ["fred"]], "eve": [:], "rita": [:], "rex": [:], "fred": [:]])
            for (schema, level, entitled) in Self.levels {
                let primaryKey = "\(schema)_id"
                // One object per verb and caller, all owned by olivia, rex a collaborator.
                var seeds: [JSONValue] = []
                for verb in ["read", "update", "delete"] {
                    for kind in Kind.allCases {
                        seeds.append([primaryKey: .string("\(verb)-\(kind)"), "sm_owner": "user/olivia", "collaborators": ["rex"], "title": "seed"])
                    }
                }
                let seeded = try await fixture.send(.privateKey, .post, "/\(schema)", json: .array(seeds))
                #expect(seeded.status == .ok && seeded.object?["failed"] == [], "\(schema): \(seeded.text)")

                for kind in Kind.allCases {
                    let caller: ACLCaller = switch kind {
                    case .anonymous: .anonymous
                    case .stranger: .user("eve")
                    case .entitled: .user(entitled)
                    case .privateKey: .privateKey
                    }
                    let cell = "\(schema) as \(kind) (\(caller))"

                    let create = try await fixture.send(caller, .post, "/\(schema)", json: [primaryKey: .string("new-\(kind)"), "title": "t"])
                    try check(create, Self.expected(level, kind, .create), verb: .create, cell: cell) {
                        #expect(create.status == .created && create.object?[primaryKey] == .string("new-\(kind)"), "\(cell) create: \(create.text)")
                    }

                    let read = try await fixture.send(caller, .get, "/\(schema)/read-\(kind)")
                    try check(read, Self.expected(level, kind, .read), verb: .read, cell: cell) {
                        #expect(read.status == .ok && read.object?[primaryKey] == .string("read-\(kind)"), "\(cell) read: \(read.text)")
                    }

                    let update = try await fixture.send(caller, .put, "/\(schema)/update-\(kind)", json: ["title": "changed"])
                    let updateOutcome = Self.expected(level, kind, .update)
                    try check(update, updateOutcome, verb: .update, cell: cell) {
                        #expect(update.status == .ok && update.object?["title"] == "changed", "\(cell) update: \(update.text)")
                    }
                    let afterUpdate = try await fixture.send(.privateKey, .get, "/\(schema)/update-\(kind)")
                    #expect(afterUpdate.object?["title"] == (updateOutcome == .allowed ? "changed" : "seed"), "\(cell) update left \(afterUpdate.text)")

                    let delete = try await fixture.send(caller, .delete, "/\(schema)/delete-\(kind)")
                    let deleteOutcome = Self.expected(level, kind, .delete)
                    try check(delete, deleteOutcome, verb: .delete, cell: cell) {
                        #expect(delete.status == .ok && delete.object == [:], "\(cell) delete: \(delete.text)")
                    }
                    let afterDelete = try await fixture.send(.privateKey, .get, "/\(schema)/delete-\(kind)")
                    #expect(afterDelete.status == (deleteOutcome == .allowed ? .notFound : .ok), "\(cell) delete left \(afterDelete.status)")
                }
            }
        }
    }

    /// A refused cell: its status and exact body; an allowed one: `allowed`'s checks.
    func check(_ response: APIResponse, _ outcome: Outcome, verb: AccessVerb, cell: String, allowed: () throws -> Void) throws {
        switch outcome {
        case .allowed:
            try allowed()
        case .unauthorized:
            #expect(response.status == .unauthorized && response.object == ["error": "Insufficient authorization"], "\(cell) \(verb): \(response.status) \(response.text)")
        case .methodNotAllowed:
            #expect(response.status == .methodNotAllowed && response.object == ["error": "Invalid HTTP method"], "\(cell) \(verb): \(response.status) \(response.text)")
        case .hidden:
            let text = verb == .delete ? "This object does not exist" : "object instance does not exist"
            #expect(response.status == .notFound && response.object == ["error": .string(text)], "\(cell) \(verb): \(response.status) \(response.text)")
        }
    }
}
