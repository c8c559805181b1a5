import Foundation
import Testing

/// The inputs of one libFuzzer target in Fuzz/ (docs/testing.md, "Fuzzing the parsers"): its
/// checked-in corpus, `Fuzz/corpus/<target>/`, and the inputs that once crashed it,
/// `Fuzz/regressions/<target>/`. Replaying them in the test targets makes both a regression suite
/// that runs without the sanitizers. A module of its own, so that the core tests can use it without
/// depending on the HTTP side, as they would through StackMobTestSupport.
public struct FuzzInput: Sendable, CustomTestStringConvertible {
    public let path: String
    public let bytes: [UInt8]

    public var text: String { String(decoding: bytes, as: UTF8.self) }
    public var testDescription: String { path }

    /// Every file of the target's two directories, regressions first; the corpus must exist.
    public static func all(of target: String) -> [FuzzInput] {
        // This file is Tests/StackMobFuzzInput/FuzzInput.swift: three levels below the root.
        let fuzz = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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
