@testable import StackMobCore
import StackMobFuzzInput
import Testing

/// The FuzzConfig target's corpus and regressions (Fuzz/): each input is a configuration file, or
/// fails as JSON or with a ConfigurationError.
@Suite("Configuration files on the fuzz corpus")
struct ConfigurationFuzzCorpusTests {
    @Test("every input decodes or throws ConfigurationError", arguments: FuzzInput.all(of: "FuzzConfig"))
    func replay(input: FuzzInput) {
        // As the fuzz target: a file naming a device (a schema file /dev/zero) is not parsed.
        guard !["dev/", "proc/", "sys/"].contains(where: { input.text.contains($0) }) else { return }
        guard let tree = (try? JSONParser.parse(input.bytes, options: .init(allowsComments: true)))?.objectValue else { return }
        #expect(throws: Never.self) {
            do {
                _ = try ConfigurationDecoder.decode(tree)
            } catch is ConfigurationError {}
        }
    }
}
