import Foundation
import StackMobCore

/// What every storage engine must do behind the domain's protocols (`StackMobCore/Storage/
/// Boundary`), as one list of checks that any engine's `EnvironmentStorage` runs. The suite runs
/// them on the engine the test servers use: SQLite, and PostgreSQL in the `postgresql` tier of
/// scripts/test.sh (docs/testing.md). Parse Server's adapter test matrix is the model: one suite,
/// every database.
///
/// A check throws `Failure` with what differed; it never passes without comparing something.
public enum StorageConformance {
    public struct Check: Sendable {
        public let name: String
        let run: @Sendable (EnvironmentStorage) async throws -> Void
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func check(named name: String) -> Check? {
        checks.first { $0.name == name }
    }

    /// Opens `environment` on a fresh database of `provider`, runs the check, closes the engine.
    public static func run(_ check: Check, provider: any StorageProvider) async throws {
        let storage = try await provider.open(.development, registry: SchemaRegistry(), indexes: [:])
        do {
            try await check.run(storage)
        } catch {
            try? await storage.engine.close()
            throw error
        }
        try await storage.engine.close()
    }

    public static let checks: [Check] = objectChecks + queryChecks + sideStoreChecks

    static let note = SchemaDefinition(name: "note", fields: ["title": .string, "n": .integer])

    static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure(description: message()) }
    }

    static func createNotes(_ storage: EnvironmentStorage, _ objects: [JSONObject] = []) async throws {
        try await storage.engine.write { writer in
            try await writer.evolveSchema(from: nil, to: note)
            for object in objects { try await writer.insert(object, into: note) }
        }
    }

    static func noteObject(_ id: String, n: Int64, created: Int64) -> JSONObject {
        ["note_id": .string(id), "title": .string("note \(id)"), "n": .integer(n), "createddate": .integer(created), "lastmoddate": .integer(created)]
    }

    static func read(_ storage: EnvironmentStorage, _ id: String) async throws -> JSONObject? {
        try await storage.engine.read { try await $0.fetchObject(note, id: id) }
    }

    /// Writing and reading single objects, and what a transaction promises.
    static let objectChecks: [Check] = [
        Check(name: "an inserted object reads back with its fields; a second insert of its key is a duplicate key") { storage in
            try await createNotes(storage, [noteObject("a", n: 1, created: 10)])
            let object = try await read(storage, "a")
            try expect(object?["title"] == .string("note a") && object?["n"] == .integer(1), "read back \(String(describing: object))")
            do {
                try await storage.engine.write { try await $0.insert(noteObject("a", n: 2, created: 11), into: note) }
                throw Failure(description: "a second insert of the same key succeeded")
            } catch let error as StorageError {
                try expect(error == .duplicateKey, "\(error)")
            }
            try expect(try await read(storage, "a")?["n"] == .integer(1), "the refused insert changed the object")
        },
        Check(name: "an update sets the fields it names and a null clears one; a delete tells whether there was an object") { storage in
            try await createNotes(storage, [noteObject("a", n: 1, created: 10)])
            try await storage.engine.write { try await $0.update(note, id: "a", changes: ["n": .integer(5), "title": .null]) }
            let object = try await read(storage, "a")
            try expect(object?["n"] == .integer(5), "n is \(String(describing: object?["n"]))")
            try expect(object?["title"] == nil, "a cleared field still reads \(String(describing: object?["title"]))")
            try expect(try await storage.engine.write { try await $0.delete(note, id: "a") }, "the delete found nothing")
            try expect(!(try await storage.engine.write { try await $0.delete(note, id: "a") }), "a second delete found the object")
            try expect(try await read(storage, "a") == nil, "the deleted object still reads")
        },
        Check(name: "a write whose body throws commits nothing") { storage in
            try await createNotes(storage)
            struct Abandoned: Error {}
            do {
                try await storage.engine.write { writer in
                    try await writer.insert(noteObject("b", n: 1, created: 10), into: note)
                    throw Abandoned()
                }
            } catch is Abandoned {}
            try expect(try await read(storage, "b") == nil, "the abandoned transaction's insert is visible")
        },
        Check(name: "a schema's definition and fields are loaded back, and later fields are added") { storage in
            try await createNotes(storage)
            let next = note.adding(["done": .boolean])
            try await storage.engine.write { try await $0.evolveSchema(from: note, to: next) }
            let stored = try await storage.engine.loadSchemaDefinitions().first { $0.name == "note" }
            try expect(stored == next, "loaded \(String(describing: stored))")
        },
    ]

    /// Five notes whose default order (newest first, the key breaking ties, PROTOCOL D18) is
    /// e, a, b, c, d: created 5, 3, 3, 2, 1.
    static let five = [
        noteObject("a", n: 1, created: 3), noteObject("b", n: 2, created: 3), noteObject("c", n: 3, created: 2),
        noteObject("d", n: 4, created: 1), noteObject("e", n: 5, created: 5),
    ]

    /// `five` with titles of 1,000 bytes: rows of about 1 KB, for byte limits.
    static var fiveLarge: [JSONObject] {
        five.map { object in
            var object = object
            object["title"] = .string(String(repeating: "t", count: 1_000))
            return object
        }
    }

    static func ids(_ objects: [JSONObject]) -> [String] {
        objects.compactMap { $0["note_id"]?.stringValue }
    }

    static func greater(than n: Int64) -> TypedFilter {
        .condition(TypedCondition(field: "n", target: .scalar, operation: .greaterThan(.integer(n))))
    }

    static func key(_ operation: TypedCondition.Operation) -> TypedFilter {
        .condition(TypedCondition(field: "note_id", target: .scalar, operation: operation))
    }

    /// Queries: order, window, total, filters, keys and ids.
    static let queryChecks: [Check] = [
        Check(name: "the total of an OR group counts each match once: overlapping, disjoint and three branches, with other conditions") { storage in
            try await createNotes(storage, five)
            // On the primary key, which every engine indexes: an engine may count such a group
            // branch by branch (`UnionCount`), and must still count an object both branches match once.
            let cases: [(TypedFilter, Set<String>)] = [
                (.all([.any([key(.lessOrEqual("c")), key(.greaterOrEqual("b"))])]), ["a", "b", "c", "d", "e"]),
                (.all([.any([key(.lessThan("c")), key(.greaterThan("c"))])]), ["a", "b", "d", "e"]),
                (.all([.any([key(.equal("a")), key(.lessOrEqual("b")), key(.greaterOrEqual("e"))])]), ["a", "b", "e"]),
                (.all([greater(than: 1), .any([key(.lessOrEqual("c")), key(.greaterOrEqual("b"))])]), ["b", "c", "d", "e"]),
                (.any([key(.isIn(["a", "b"])), .all([key(.greaterThan("a")), greater(than: 4)])]), ["a", "b", "e"]),
            ]
            for (filter, expected) in cases {
                let page = try await storage.engine.read { try await $0.fetchObjects(note, query: ObjectQuery(filter: filter, limit: 1, countsTotal: true)) }
                let all = try await storage.engine.read { try await $0.fetchObjects(note, query: ObjectQuery(filter: filter)) }
                try expect(Set(ids(all.objects)) == expected, "\(filter) matched \(ids(all.objects))")
                try expect(page.total == expected.count, "\(filter): total \(String(describing: page.total)), expected \(expected.count)")
            }
        },
        Check(name: "a page is newest first with the key breaking ties, windowed, with the total of all matches") { storage in
            try await createNotes(storage, five)
            let page = try await storage.engine.read { try await $0.fetchObjects(note, query: ObjectQuery(offset: 1, limit: 2, countsTotal: true)) }
            try expect(ids(page.objects) == ["a", "b"], "page \(ids(page.objects))")
            try expect(page.total == 5, "total \(String(describing: page.total))")
            let sorted = try await storage.engine.read {
                try await $0.fetchObjects(note, query: ObjectQuery(order: [SortKey(field: "n", ascending: false)], limit: 3))
            }
            try expect(ids(sorted.objects) == ["e", "d", "c"], "ordered by n descending: \(ids(sorted.objects))")
        },
        Check(name: "ties run in the direction of the last sort key, the other way after createddate, and windows over them meet") { storage in
            try await createNotes(storage, five)
            // a and b share their dates (3). Field indexes end with the key ascending, the
            // newest-first index holds createddate descending and the key ascending (`PageOrder`).
            let expected: [(SortKey, [String])] = [
                (SortKey(field: "lastmoddate", ascending: true), ["d", "c", "a", "b", "e"]),
                (SortKey(field: "lastmoddate", ascending: false), ["e", "b", "a", "c", "d"]),
                (SortKey(field: "createddate", ascending: true), ["d", "c", "b", "a", "e"]),
                (SortKey(field: "createddate", ascending: false), ["e", "a", "b", "c", "d"]),
            ]
            for (key, order) in expected {
                var windows: [String] = []
                for offset in stride(from: 0, to: 5, by: 2) {
                    let page = try await storage.engine.read { try await $0.fetchObjects(note, query: ObjectQuery(order: [key], offset: offset, limit: 2)) }
                    windows += ids(page.objects)
                }
                try expect(windows == order, "\(key.field) \(key.ascending ? "asc" : "desc"): \(windows), expected \(order)")
            }
        },
        Check(name: "a byte limit ends a read after the row that passes it, keeps the total, and the snapshot reads on") { storage in
            // n 1 ... 5: a limit of 2,500 bytes is passed by the third row read.
            try await createNotes(storage, fiveLarge)
            let order = [SortKey(field: "n", ascending: true)]
            let (page, keys) = try await storage.engine.read { reader in
                let page = try await reader.fetchObjects(note, query: ObjectQuery(order: order, limit: 5, countsTotal: true, byteLimit: 2_500))
                // Rows left unread on the connection must not disturb the next statement.
                return (page, try await reader.fetchPrimaryKeys(note, query: ObjectQuery(order: order, offset: page.objects.count)))
            }
            try expect(ids(page.objects) == ["a", "b", "c"] && page.endedAtByteLimit, "read \(ids(page.objects)), ended \(page.endedAtByteLimit)")
            try expect(page.total == 5, "total \(String(describing: page.total))")
            try expect(keys == ["d", "e"], "the rest \(keys)")
            // The first row is read whatever its size; a window within the limit reads whole.
            let one = try await storage.engine.read { try await $0.fetchObjects(note, query: ObjectQuery(order: order, byteLimit: 10)) }
            try expect(ids(one.objects) == ["a"] && one.endedAtByteLimit, "read \(ids(one.objects))")
            let whole = try await storage.engine.read { try await $0.fetchObjects(note, query: ObjectQuery(order: order, byteLimit: 100_000)) }
            try expect(ids(whole.objects) == ["a", "b", "c", "d", "e"] && !whole.endedAtByteLimit, "read \(ids(whole.objects))")
        },
        Check(name: "objects read by ids in order come in the ids' order, missing ones left out, and stop after the row that passes the byte limit") { storage in
            try await createNotes(storage, fiveLarge)
            let (page, after) = try await storage.engine.read { reader in
                let page = try await reader.fetchObjects(note, orderedIDs: ["e", "zz", "c", "a", "d", "b"], admitting: nil, byteLimit: 2_500)
                return (page, try await reader.fetchObjects(note, orderedIDs: ["d", "b"], admitting: nil, byteLimit: 100_000))
            }
            try expect(ids(page.objects) == ["e", "c", "a"] && page.endedAtByteLimit, "read \(ids(page.objects)), ended \(page.endedAtByteLimit)")
            try expect(ids(after.objects) == ["d", "b"] && !after.endedAtByteLimit, "then \(ids(after.objects))")
            // Only what the row filter admits.
            let admitted = try await storage.engine.read {
                try await $0.fetchObjects(note, orderedIDs: ["b", "d", "e"], admitting: .primaryKeyIs(field: "note_id", value: "d"), byteLimit: 100_000)
            }
            try expect(ids(admitted.objects) == ["d"], "admitted \(ids(admitted.objects))")
        },
        Check(name: "the primary keys of a query come in the order its objects do") { storage in
            try await createNotes(storage, five)
            for query in [ObjectQuery(), ObjectQuery(filter: greater(than: 1), order: [SortKey(field: "title", ascending: true)], offset: 1)] {
                let keys = try await storage.engine.read { try await $0.fetchPrimaryKeys(note, query: query) }
                let objects = try await storage.engine.read { try await $0.fetchObjects(note, query: query) }
                try expect(keys == ids(objects.objects), "keys \(keys), objects \(ids(objects.objects))")
            }
        },
        Check(name: "a filter selects what it matches, and reads by ids return the stored among them") { storage in
            try await createNotes(storage, five)
            let matched = try await storage.engine.read { try await $0.fetchObjects(note, query: ObjectQuery(filter: greater(than: 3), countsTotal: true)) }
            try expect(Set(ids(matched.objects)) == ["d", "e"] && matched.total == 2, "matched \(ids(matched.objects)), total \(String(describing: matched.total))")
            let byID = try await storage.engine.readByKey { try await $0.fetchObjects(note, ids: ["a", "c", "zz"]) }
            try expect(Set(ids(byID)) == ["a", "c"], "by ids \(ids(byID))")
        },
        Check(name: "deleting by filter removes what matches and returns the fields asked for") { storage in
            try await createNotes(storage, five)
            let deleted = try await storage.engine.write { try await $0.deleteObjects(note, matching: greater(than: 3), returning: ["n"]) }
            try expect(Set(ids(deleted)) == ["d", "e"], "deleted \(ids(deleted))")
            try expect(Set(deleted.compactMap { $0["n"] }) == [.integer(4), .integer(5)], "returned \(deleted)")
            let left = try await storage.engine.read { try await $0.fetchPrimaryKeys(note, query: ObjectQuery()) }
            try expect(left == ["a", "b", "c"], "left \(left)")
        },
    ]

    /// The stores beside the objects: sessions, MAC nonces, operators, backups.
    static let sideStoreChecks: [Check] = [
        Check(name: "a session is found by either token's hash, its refresh rotates once, and a delete ends it") { storage in
            let session = StoredSession(
                accessHash: "access-1", refreshHash: "refresh-1", userSchema: "user", userID: "olivia", sealedMACKey: [1, 2, 3],
                expiresAt: 1_000, createdAt: 10)
            try await storage.tokens.insertSession(session, replacingOthers: false)
            try expect(try await storage.tokens.session(accessHash: "access-1") == session, "not found by its access hash")
            try expect(try await storage.tokens.session(refreshHash: "refresh-1") == session, "not found by its refresh hash")
            var next = session
            next.accessHash = "access-2"
            next.refreshHash = "refresh-2"
            try expect(try await storage.tokens.rotateSession(refreshHash: "refresh-1", to: next), "the first rotation failed")
            try expect(!(try await storage.tokens.rotateSession(refreshHash: "refresh-1", to: next)), "a used refresh token rotated again")
            try expect(try await storage.tokens.session(accessHash: "access-1") == nil, "the rotated-out session still signs in")
            try await storage.tokens.deleteSession(accessHash: "access-2")
            try expect(try await storage.tokens.session(accessHash: "access-2") == nil, "the deleted session still signs in")
        },
        Check(name: "a MAC nonce is accepted once within its window, and again once swept") { storage in
            let nonces = storage.nonces
            func request(expiresAt: Int64 = 200, now: Int64) -> SeenRequest {
                SeenRequest(token: "t", ts: 100, nonce: "n1", mac: "m", expiresAt: expiresAt, now: now)
            }
            try expect(try await nonces.record(request(now: 100)), "a first request was refused")
            try expect(!(try await nonces.record(request(now: 150))), "a replay was accepted")
            try expect(try await nonces.sweep(now: 201) >= 1, "the sweep removed nothing")
            try expect(try await nonces.record(request(expiresAt: 300, now: 201)), "a swept nonce was refused")
        },
        Check(name: "an engine shared by instances finds a signed request's session and records its nonce in one call") { storage in
            guard let signed = storage.signedSessions else {
                try expect(!storage.engine.isShared, "a shared engine looks a signed session up and records its nonce in two round trips")
                return
            }
            let session = StoredSession(
                accessHash: "access-s", refreshHash: "refresh-s", userSchema: "user", userID: "olivia", sealedMACKey: [4, 5],
                expiresAt: 1_000, createdAt: 10)
            try await storage.tokens.insertSession(session, replacingOthers: false)
            func request(mac: String = "m", token: String = "access-s", expiresAt: Int64 = 200, now: Int64) -> SeenRequest {
                SeenRequest(token: token, ts: 100, nonce: "n1", mac: mac, expiresAt: expiresAt, now: now)
            }
            let first = try await signed.session(accessHash: "access-s", recording: request(now: 100))
            try expect(first?.session == session && first?.fresh == true, "a first request: \(String(describing: first))")
            let replay = try await signed.session(accessHash: "access-s", recording: request(now: 150))
            try expect(replay?.session == session && replay?.fresh == false, "a replay: \(String(describing: replay))")
            try expect(!(try await storage.nonces.record(request(now: 150))), "the nonce store does not see the recorded request")
            let otherMAC = try await signed.session(accessHash: "access-s", recording: request(mac: "other", now: 150))
            try expect(otherMAC?.fresh == true, "another mac with the same nonce was refused")
            let unknown = try await signed.session(accessHash: "access-x", recording: request(token: "access-x", now: 150))
            try expect(unknown == nil, "an unknown token found \(String(describing: unknown))")
            try expect(try await storage.nonces.record(request(token: "access-x", now: 150)), "an unknown token's request was recorded")
            let expired = try await signed.session(accessHash: "access-s", recording: request(expiresAt: 300, now: 201))
            try expect(expired?.fresh == true, "a request whose record expired was refused")
            var ended = session
            ended.accessHash = "access-e"
            ended.refreshHash = "refresh-e"
            ended.expiresAt = 50
            try await storage.tokens.insertSession(ended, replacingOthers: false)
            let late = try await signed.session(accessHash: "access-e", recording: request(token: "access-e", now: 100))
            try expect(late?.session == ended, "an expired session was not found: \(String(describing: late))")
            try expect(try await storage.nonces.record(request(token: "access-e", now: 100)), "an expired session's request was recorded")
        },
        Check(name: "an operator is stored with its password hash and audited") { storage in
            let operators = storage.operators
            try expect(!(try await operators.hasOperators()), "a new database has operators")
            try await operators.insertOperator(
                name: "ada", passwordHash: "hash", audit: AuditRecord(at: 10, operatorName: "ada", action: "operator.add", detail: .null))
            try expect(try await operators.hasOperators(), "the operator was not stored")
            try expect(try await operators.passwordHash(ofOperator: "ada") == "hash", "wrong password hash")
            try expect(try await operators.auditLog(limit: 10).count == 1, "the insert was not audited")
        },
        Check(name: "an engine that declares backups writes a readable copy; one that does not is shared and backed up by its own tools") { storage in
            guard let backup = storage.engine.backup else {
                try expect(storage.engine.isShared, "an engine of one process declares no backup")
                return
            }
            try await createNotes(storage, [noteObject("a", n: 1, created: 10)])
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-conformance-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try await backup.backup(to: path)
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            try expect(size > 0, "the copy is empty")
        },
    ]
}
