@testable import StackMobHTTP
import StackMobFuzzInput
import Testing

/// The FuzzAccept target's corpus and regressions (Fuzz/): each input, as an Accept header,
/// gives an API version.
@Suite("Accept headers on the fuzz corpus")
struct AcceptFuzzCorpusTests {
    @Test("every input gives a version of 0 or more", arguments: FuzzInput.all(of: "FuzzAccept"))
    func replay(input: FuzzInput) {
        #expect(APIVersion.parse(accept: input.text) >= 0)
    }
}
