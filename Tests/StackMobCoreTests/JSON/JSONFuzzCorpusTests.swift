import StackMobFuzzInput
import StackMobCore
import Testing

/// The FuzzJSON target's corpus and regressions (Fuzz/): each input parses or throws JSONParseError.
@Suite("JSONParser on the fuzz corpus")
struct JSONFuzzCorpusTests {
    @Test("every input parses or throws JSONParseError", arguments: FuzzInput.all(of: "FuzzJSON"))
    func replay(input: FuzzInput) {
        do {
            _ = try JSONParser.parse(input.bytes)
        } catch {
            _ = error as JSONParseError
        }
    }
}
