import StackMobFuzzInput
import StackMobCore
import Testing

/// The FuzzRange target's corpus and regressions (Fuzz/): each input, as a Range header, parses
/// or throws QueryError (`objects=`), and gives a byte range inside every file size (`bytes=`).
@Suite("Range headers on the fuzz corpus")
struct RangeFuzzCorpusTests {
    @Test("every input parses or throws QueryError", arguments: FuzzInput.all(of: "FuzzRange"))
    func replay(input: FuzzInput) {
        do {
            let range = try ObjectRange.parse(input.text)
            #expect(range.start >= 0)
            _ = range.limit
        } catch {
            _ = error as QueryError
        }
        for size in [0, 1, 1000, Int.max] {
            if case .partial(let bytes) = ByteRange.parse(input.text, size: size) {
                #expect(bytes.lowerBound >= 0 && bytes.upperBound < size)
            }
        }
    }
}
