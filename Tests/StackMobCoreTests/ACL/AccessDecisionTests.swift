@testable import StackMobCore
import Testing

@Suite("Access decisions: level × caller × verb (PROTOCOL §12.2)")
struct AccessDecisionTests {
    static let user = Caller.user(schema: "user", id: "alice")

    @Test("the private key, with or without a cookie session, passes every level (D13)")
    func privateKeyOverrides() {
        let levels: [PermissionLevel] = [.open, .loggedIn, .owner, .role("admin"), .objectRelation("f"), .ownerRelation("f"), .privateKey, .notAllowed]
        for level in levels {
            for verb in AccessVerb.allCases {
                #expect(AccessDecision.of(level, verb: verb, caller: .privateKey) == .allow)
                #expect(AccessDecision.of(level, verb: verb, caller: .privateKeySession(schema: "user", id: "bob")) == .allow)
            }
        }
    }

    @Test("anonymous callers: open passes, not allowed is 405, everything else 401")
    func anonymous() {
        for verb in AccessVerb.allCases {
            #expect(AccessDecision.of(.open, verb: verb, caller: .anonymous) == .allow)
            #expect(AccessDecision.of(.notAllowed, verb: verb, caller: .anonymous) == .deny(.methodNotAllowed))
            for level: PermissionLevel in [.loggedIn, .owner, .role("admin"), .objectRelation("f"), .ownerRelation("f"), .privateKey] {
                #expect(AccessDecision.of(level, verb: verb, caller: .anonymous) == .deny(.insufficientAuthorization))
            }
        }
    }

    @Test("logged-in users: row rules for reads, updates and deletes; any user may create under them")
    func loggedIn() {
        #expect(AccessDecision.of(.privateKey, verb: .read, caller: Self.user) == .deny(.insufficientAuthorization))
        #expect(AccessDecision.of(.notAllowed, verb: .create, caller: Self.user) == .deny(.methodNotAllowed))
        #expect(AccessDecision.of(.loggedIn, verb: .delete, caller: Self.user) == .allow)
        #expect(AccessDecision.of(.role("admin"), verb: .create, caller: Self.user) == .allowIfMember(role: "admin"))
        for verb in [AccessVerb.read, .update, .delete] {
            #expect(AccessDecision.of(.owner, verb: verb, caller: Self.user) == .allowRows(.owner))
            #expect(AccessDecision.of(.objectRelation("team"), verb: verb, caller: Self.user) == .allowRows(.objectRelation("team")))
            #expect(AccessDecision.of(.ownerRelation("friends"), verb: verb, caller: Self.user) == .allowRows(.ownerRelation("friends")))
        }
        for level: PermissionLevel in [.owner, .objectRelation("team"), .ownerRelation("friends")] {
            #expect(AccessDecision.of(level, verb: .create, caller: Self.user) == .allow)
        }
    }

    @Test("configuration spellings round-trip; bad ones are refused")
    func spellings() {
        let levels: [PermissionLevel] = [.open, .loggedIn, .owner, .role("admin"), .objectRelation("collaborators"), .ownerRelation("friends"), .privateKey, .notAllowed]
        for level in levels {
            #expect(PermissionLevel(configuration: level.configurationText) == level)
        }
        for bad in ["", "Open", "public", "role:", "role:Admin", "relation:a b", "owner_relation", "friends:x", "role:admin:x"] {
            #expect(PermissionLevel(configuration: bad) == nil, "\(bad)")
        }
    }

    @Test("unconfigured schemas are open; aclrole defaults to the private key")
    func policyDefaults() {
        let policy = AccessPolicy(schemas: ["todo": SchemaPermissions(read: .owner)])
        #expect(policy.level(.read, on: "todo") == .owner)
        #expect(policy.level(.create, on: "todo") == .open)
        #expect(policy.permissions(for: "user") == .open)
        #expect(policy.permissions(for: "aclrole") == SchemaPermissions(all: .privateKey))
        #expect(!policy.usesRoles)
        #expect(AccessPolicy(schemas: ["x": SchemaPermissions(delete: .role("admin"))]).usesRoles)
        #expect(AccessPolicy(roles: ["admin": ["alice"]]).usesRoles)
    }
}
