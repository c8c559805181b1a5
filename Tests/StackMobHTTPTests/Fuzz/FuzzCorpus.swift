import StackMobFuzzInput
import Testing

@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    @Test("every target replayed in this module has its corpus checked in", arguments: [
        "FuzzQuery", "FuzzAccept", "FuzzFormBody", "FuzzPercentDecoding",
    ])
    func corpusIsThere(target: String) {
        #expect(FuzzInput.all(of: target).contains { $0.path.hasPrefix("corpus/") })
    }
}
