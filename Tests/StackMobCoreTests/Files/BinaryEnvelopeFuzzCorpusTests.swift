import StackMobFuzzInput
import StackMobCore
import Testing

/// The FuzzBinaryEnvelope target's corpus and regressions (Fuzz/): each input, as a binary
/// field's value, parses or throws BinaryFieldError.
@Suite("Binary envelopes on the fuzz corpus")
struct BinaryEnvelopeFuzzCorpusTests {
    @Test("every input parses or throws BinaryFieldError", arguments: FuzzInput.all(of: "FuzzBinaryEnvelope"))
    func replay(input: FuzzInput) {
        _ = BinaryEnvelope.looksLikeEnvelope(input.text)
        do {
            _ = try BinaryEnvelope.parse(input.text, field: "photo")
        } catch {
            _ = error as BinaryFieldError
        }
    }
}
