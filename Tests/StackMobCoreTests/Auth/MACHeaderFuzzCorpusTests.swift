@testable import StackMobCore
import StackMobFuzzInput
import Testing

/// The FuzzMACHeader target's corpus and regressions (Fuzz/): each input, as a MAC Authorization
/// header, a request-uri and a Host header, gives a value or nil.
@Suite("MAC headers on the fuzz corpus")
struct MACHeaderFuzzCorpusTests {
    @Test("every input parses or gives nil", arguments: FuzzInput.all(of: "FuzzMACHeader"))
    func replay(input: FuzzInput) {
        let header = input.text
        _ = MACAuthorization.parse(header)
        #expect(MACCandidates.requestURIs(target: header).first == header)
        _ = MACCandidates.hostAndPorts(host: header, forwardedProto: "https", forwardedPort: header)
    }
}
