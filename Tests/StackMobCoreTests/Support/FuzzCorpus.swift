import Foundation
import Testing

/// The inputs of one libFuzzer target in Fuzz/ (issue 20): its checked-in corpus,
/// `Fuzz/corpus/<target>/`, and the inputs that once crashed it, `Fuzz/regressions/<target>/`.
/// Replaying them here makes both a regression suite that runs without the sanitizers.
/// (StackMobHTTPTests holds the same helper: the two test targets share no support module.)
struct FuzzInput: Sendable, CustomTestStringConvertible {
    let path: String
    let bytes: [UInt8]

    var text: String { String(decoding: bytes, as: UTF8.self) }
    var testDescription: String { path }

    /// Every file of the target's two directories, regressions first; the corpus must exist.
    static func all(of target: String) -> [FuzzInput] {
        let fuzz = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz")
        return ["regressions", "corpus"].flatMap { kind in
            let directory = fuzz.appendingPathComponent(kind).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.sorted().compactMap { name in
                FileManager.default.contents(atPath: directory.appendingPathComponent(name).path).map {
                    FuzzInput(path: "\(kind)/\(target)/\(name)", bytes: Array($0))
                }
            }
        }
    }
}

@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    @Test("every target replayed in this module has its corpus checked in", arguments: [
        "FuzzJSON", "FuzzConfig", "FuzzQueryHeaders", "FuzzRange", "FuzzMACHeader", "FuzzOAuth1Header", "FuzzBinaryEnvelope",
    ])
    func corpusIsThere(target: String) {
        #expect(FuzzInput.all(of: target).contains { $0.path.hasPrefix("corpus/") })
    }
}
