@testable import StackMobHTTP
import StackMobFuzzInput
import Testing

/// The FuzzFormBody target's corpus and regressions (Fuzz/): each input, as a token request's
/// body and as a console form, gives parameters or throws RequestError.
@Suite("Form bodies on the fuzz corpus")
struct FormBodyFuzzCorpusTests {
    @Test("every input gives parameters or throws RequestError", arguments: FuzzInput.all(of: "FuzzFormBody"))
    func replay(input: FuzzInput) {
        do {
            _ = try FormBody.parameters(body: input.bytes)
        } catch {
            _ = error as RequestError
        }
        _ = ConsoleForm(encoded: input.text)
    }
}
