@testable import StackMobCore
@testable import StackMobHTTP
import StackMobFuzzInput
import Testing

/// The FuzzPercentDecoding target's corpus and regressions (Fuzz/): each input, through every
/// percent-decoder, decodes, gives nil or throws the decoder's error.
@Suite("Percent-decoding on the fuzz corpus")
struct PercentDecodingFuzzCorpusTests {
    @Test("every input decodes or fails with the decoder's error", arguments: FuzzInput.all(of: "FuzzPercentDecoding"))
    func replay(input: FuzzInput) {
        let text = input.text
        for plusAsSpace in [false, true] {
            do { _ = try PathSegment.decode(text, plusAsSpace: plusAsSpace) } catch { _ = error as RequestError }
            _ = OAuth1Encoding.decode(text, plusIsSpace: plusAsSpace)
        }
        _ = MACCandidates.percentDecode(text[...], keeping: [])
        _ = MACCandidates.percentDecode(text[...], keeping: MACCandidates.iOSKeptEscapes)
        #expect(throws: Never.self) {
            do { _ = try SitePath("/" + text) } catch is HTML5Error {}
        }
    }
}
