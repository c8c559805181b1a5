import CMalloc
import Foundation
import StackMobCore
import Testing

/// `JSONParser.bytesPerValue` bounds what a parsed request body takes beyond its text
/// (`BodyBudget` grows a request's share by it), so it must hold for the texts that spend
/// the fewest bytes on the most memory.
@Suite("The memory of a parsed text")
struct JSONParsedMemoryTests {
    /// Texts of `count` repetitions of a piece, in an array or as an object's members.
    static func shapes(count: Int) -> [(name: String, text: String)] {
        func array(_ element: String) -> String { "[" + Array(repeating: element, count: count).joined(separator: ",") + "]" }
        return [
            ("numbers", array("1")),
            ("one-element arrays", array("[1]")),
            ("one-member objects", array("{\"a\":1}")),
            ("empty arrays and objects", array("[],{}")),
            ("strings too long to be kept inline", array("\"aaaaaaaaaaaaaaaa\"")),
            ("an object of many members", "{" + (0..<count).map { "\"k\($0)\":1" }.joined(separator: ",") + "}"),
        ]
    }

    /// What the heap holds: small allocations, and large ones, which glibc maps apart.
    static func heap() -> Int {
        let info = mallinfo2()
        return Int(info.uordblks + info.hblkhd)
    }

    /// Each shape's parse weighed on the heap: what it adds beyond the text, a value. Run in a
    /// process of its own, where no other test allocates meanwhile; each shape parsed three
    /// times, the median kept.
    static func bytesPerValueBeyondText() throws -> [(name: String, bytes: Double)] {
        try shapes(count: 20_000).map { name, text in
            let text = Array(text.utf8)
            var measures: [Int] = []
            var values = 0
            for _ in 0..<3 {
                let before = heap()
                let parsed = try JSONParser.parseCountingValues(text)
                let after = heap()
                withExtendedLifetime(parsed.value) {}
                measures.append(after - before)
                values = parsed.values
            }
            return (name, Double(measures.sorted()[1] - text.count) / Double(values))
        }
    }

    @Test("a parsed text takes at most its bytes and bytesPerValue a value, and the costliest shape comes near that")
    func bounded() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            for (name, bytes) in try JSONParsedMemoryTests.bytesPerValueBeyondText() { print("\(name)=\(bytes)") }
        }
        let measured = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self).split(separator: "\n").compactMap { line in
            line.split(separator: "=").last.flatMap { Double($0) }
        }
        #expect(measured.count == Self.shapes(count: 1).count, "\(measured)")
        let most = measured.max() ?? 0
        #expect(most <= Double(JSONParser.bytesPerValue), "bytes a value beyond the text: \(measured)")
        // Not so loose that it refuses bodies for memory they never take.
        #expect(most * 2 >= Double(JSONParser.bytesPerValue), "bytes a value beyond the text: \(measured)")
    }
}
