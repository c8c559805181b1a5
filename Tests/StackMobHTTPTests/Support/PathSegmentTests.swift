import Testing

@testable import StackMobHTTP

/// `PathSegment.decode`: a segment with nothing to decode comes back as it is; `%XX` and, in an
/// object id, `+` are decoded.
@Suite("Path segments")
struct PathSegmentTests {
    @Test("segments decode to the same text with and without escapes")
    func decoded() throws {
        let cases: [(raw: String, plusAsSpace: Bool, decoded: String)] = [
            ("catalog", false, "catalog"), ("obj00001", true, "obj00001"), ("", false, ""),
            ("a+b", false, "a+b"), ("a+b", true, "a b"), ("a%2Bb", true, "a+b"),
            ("%41%62c", false, "Abc"), ("%C3%A9t%C3%A9", false, "été"), ("été", true, "été"), ("e\u{301}", false, "e\u{301}"),
        ]
        for (raw, plusAsSpace, decoded) in cases {
            #expect(try PathSegment.decode(raw, plusAsSpace: plusAsSpace) == decoded, "\(raw)")
            #expect(try PathSegment.decode(raw.dropFirst(0), plusAsSpace: plusAsSpace) == decoded, "\(raw) as a Substring")
        }
    }

    @Test("a broken escape or bytes that are not UTF-8 are the client's error")
    func refused() {
        for raw in ["%", "%4", "%zz", "a%C3", "%FF"] {
            #expect(throws: RequestError.self, "\(raw)") { try PathSegment.decode(raw) }
        }
    }
}
