import Testing

@testable import StackMobCore

/// Arithmetic on values a client controls, at the edges of `Int64`: each once trapped, and a trap
/// stops the whole process.
@Suite("Client-controlled arithmetic")
struct ClientArithmeticTests {
    @Test("signature timestamps at the edges of Int64 are stale, never a trap")
    func signatureTimestamps() {
        let now: Int64 = 1_800_000_000_000
        let window = SignatureTimestampWindow(seconds: 300)
        #expect(window.admits(now / 1000 - 300, now: now))
        #expect(window.admits(now / 1000 + 300, now: now))
        #expect(!window.admits(now / 1000 + 301, now: now))
        for timestamp in [Int64.min, .min + 1, -9_223_372_036_854_775_807, .max, .max - 1] {
            #expect(!window.admits(timestamp, now: now))
            _ = window.nonceExpiry(for: timestamp, now: now)
        }
        // A disabled window admits anything, and still computes an expiry without trapping.
        let disabled = SignatureTimestampWindow(seconds: 0)
        #expect(disabled.admits(.min, now: now))
        #expect(disabled.nonceExpiry(for: .min, now: .max) == .max)
        #expect(window.nonceExpiry(for: now / 1000, now: now) == (now / 1000 + 300) * 1000)
    }

    @Test("a Range up to Int.max holds Int.max objects")
    func objectRange() throws {
        let range = try ObjectRange.parse("objects=0-9223372036854775807")
        #expect(range.limit == .max)
        #expect(try ObjectRange.parse("objects=5-9").limit == 5)
        #expect(range.lastIndex(returning: 3) == 2)
        #expect(ObjectRange(start: .max, end: .max).lastIndex(returning: 2) == nil)
    }

    @Test("the next lastmoddate after a stored Int64.max saturates")
    func modificationDate() {
        #expect(ObjectTimestamps.nextModification(after: .max, now: 5) == .max)
        #expect(ObjectTimestamps.nextModification(after: 10, now: 5) == 11)
        #expect(ObjectTimestamps.nextModification(after: 10, now: 50) == 50)
    }

    @Test("a file name numbered Int.max gets a new number appended")
    func fileKeyAlternate() {
        let key = FileKey(environment: .development, schema: "photo", id: "p1", field: "pic", filename: "a-9223372036854775807.png")
        #expect(key.alternate.filename == "a-9223372036854775807-1.png")
        let numbered = FileKey(environment: .development, schema: "photo", id: "p1", field: "pic", filename: "a-41.png")
        #expect(numbered.alternate.filename == "a-42.png")
    }
}
