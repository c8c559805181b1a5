@testable import StackMobHTTP
import Testing

@Suite("Accept header version parsing")
struct APIVersionTests {
    @Test(arguments: [
        (nil, 0),
        ("application/vnd.stackmob+json; version=0", 0),
        ("application/vnd.stackmob+json; version=3", 3),
        ("application/vnd.stackmob+json;version = 12", 12),
        ("application/json, application/vnd.stackmob+json; version=1", 1),
        ("application/json", 0),
        ("version=", 0),
        ("version=99999999999999999999999", Int.max),
    ] as [(String?, Int)])
    func parse(accept: String?, version: Int) {
        #expect(APIVersion.parse(accept: accept) == version)
    }
}
