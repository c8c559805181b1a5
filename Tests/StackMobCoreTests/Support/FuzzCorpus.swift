import StackMobFuzzInput
import Testing

@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    @Test("every target replayed in this module has its corpus checked in", arguments: [
        "FuzzJSON", "FuzzConfig", "FuzzQueryHeaders", "FuzzRange", "FuzzMACHeader", "FuzzOAuth1Header", "FuzzBinaryEnvelope",
    ])
    func corpusIsThere(target: String) {
        #expect(FuzzInput.all(of: target).contains { $0.path.hasPrefix("corpus/") })
    }
}
