import StackMobFuzzInput
import StackMobCore
import Testing

/// The FuzzOAuth1Header target's corpus and regressions (Fuzz/): each input, as an OAuth 1.0
/// Authorization header, parses or gives nil.
@Suite("OAuth 1.0 headers on the fuzz corpus")
struct OAuth1HeaderFuzzCorpusTests {
    @Test("every input parses or gives nil", arguments: FuzzInput.all(of: "FuzzOAuth1Header"))
    func replay(input: FuzzInput) {
        if let authorization = OAuth1Authorization.parse(input.text) {
            _ = authorization.timestamp
        }
    }
}
