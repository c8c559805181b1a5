@testable import StackMobHTTP
import Testing

@Suite("Finding %00 in a request target")
struct NULTargetTests {
    @Test(
        "%00 anywhere, or a NUL byte, is found; %0, %2500, %0a and the like are not",
        arguments: [
            ("/todo/a%00b", true), ("/todo/%00", true), ("/todo?a=%00", true), ("/%00", true), ("%00", true), ("/a%%00", true),
            ("/todo/a%000", true), ("/todo/a\u{0}b", true), ("\u{0}", true), ("/todo/é%00", true),
            ("/", false), ("", false), ("%", false), ("%0", false), ("/todo/a%0", false), ("/todo/%2500", false), ("/todo/%0a%0D", false),
            ("/todo/a%20b?x=%010", false), ("/todo/0%0", false), ("/todo/é?x=0", false),
        ])
    func scan(target: String, holdsNUL: Bool) {
        #expect(NULMiddleware.holdsNUL(target) == holdsNUL)
    }
}
