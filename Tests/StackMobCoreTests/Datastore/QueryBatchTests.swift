import Testing

@testable import StackMobCore

/// What one read of a long answer holds (`Datastore.queryInBatches`): the first read and each
/// later batch stop at `Datastore.batchBytes` of stored values, whatever the answer's text, so
/// that a page of large objects, or a selection that writes little of what it reads, never holds
/// more than a few megabytes of objects at once (docs/architecture.md, "Memory per request").
@Suite("Query batches are bounded by bytes")
struct QueryBatchTests {
    /// Objects of about 1 MB: four fill a batch's bytes, the fifth passes them.
    static let objectBytes = 1_000_000
    static let objects = 30

    @Test("a selection of one small field reads the rest of a long answer a few large objects at a time, all of them, in order")
    func selectedBatches() async throws {
        #expect(4 * Self.objectBytes < Datastore.batchBytes && 5 * Self.objectBytes > Datastore.batchBytes)
        try await Self.withStoredObjects { datastore in
            let request = QueryRequest(order: [SortKey(field: "n", ascending: true)], select: ["n"])
            let answer = try await datastore.queryInBatches(in: "big", request, caller: .anonymous)
            #expect(answer.first.count == 5)
            let rest = try #require(answer.rest)
            #expect(rest.count == Self.objects - 5)
            var numbers = answer.first.compactMap { $0["n"]?.integerValue }
            var position = 0
            while position < rest.count {
                // Asked for every remaining object at once, as a selection's small text would.
                let batch = try await rest.read(position..<rest.count)
                #expect(batch.objects.count <= 5, "a batch of \(batch.objects.count) objects of 1 MB")
                #expect(batch.next > position)
                numbers += batch.objects.compactMap { $0["n"]?.integerValue }
                position = batch.next
            }
            #expect(numbers == (0..<Int64(Self.objects)).map { $0 })
            // Reading whole (the server's own uses) still returns every object.
            let whole = try await datastore.query(in: "big", request, caller: .anonymous)
            #expect(whole.objects.count == Self.objects)
        }
    }

    @Test("objects deleted between batches are left out, and the reading goes on past them")
    func deletedBetweenBatches() async throws {
        try await Self.withStoredObjects { datastore in
            let request = QueryRequest(order: [SortKey(field: "n", ascending: true)], select: ["n"])
            let answer = try await datastore.queryInBatches(in: "big", request, caller: .anonymous)
            let rest = try #require(answer.rest)
            for n in [5, 6, 12] { try await datastore.delete(id: "b\(n)", in: "big", caller: .anonymous) }
            var numbers: [Int64] = []
            var position = 0
            while position < rest.count {
                let batch = try await rest.read(position..<rest.count)
                numbers += batch.objects.compactMap { $0["n"]?.integerValue }
                position = batch.next
            }
            #expect(numbers == (5..<Int64(Self.objects)).filter { ![5, 6, 12].contains($0) })
        }
    }

    /// A datastore holding `objects` objects of `objectBytes` in `big`, `n` 0 ..< objects.
    static func withStoredObjects(_ body: (Datastore) async throws -> Void) async throws {
        try await TemporaryDatabase.withDatastore { _, _, datastore in
            let text = String(repeating: "x", count: objectBytes)
            for n in 0..<objects {
                _ = try await datastore.create(["big_id": .string("b\(n)"), "n": .integer(Int64(n)), "text": .string(text)], in: "big", caller: .anonymous)
            }
            try await body(datastore)
        }
    }
}
