import Foundation
import StackMobCore
import Testing

@Suite("Trimming spaces")
struct SpaceTrimmingTests {
    /// Every string built from these pieces, up to three long, on both sides of a word.
    private static let pieces = ["", " ", "\t", "\u{00A0}", "\u{3000}", "\u{2009}", "\n", "\r", "x", "é", "-"]

    @Test("the same result as Foundation's trimmingCharacters(in: .whitespaces), newlines kept")
    func likeFoundation() {
        var samples: [String] = []
        for a in Self.pieces {
            for b in Self.pieces {
                for c in Self.pieces {
                    samples.append(a + b + c)
                    samples.append(a + b + "objects=0-19" + c + a)
                }
            }
        }
        for sample in samples {
            #expect(sample.trimmingSpaces() == sample.trimmingCharacters(in: .whitespaces), "\(Array(sample.unicodeScalars))")
            let substring = Substring(sample)
            #expect(substring.trimmingSpaces() == substring.trimmingCharacters(in: .whitespaces))
        }
        #expect(" \t ".trimmingSpaces() == "")
        #expect(" a b ".trimmingSpaces() == "a b")
    }
}
