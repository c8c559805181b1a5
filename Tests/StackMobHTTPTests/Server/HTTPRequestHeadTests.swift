import HTTPTypes
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Testing

@testable import StackMobHTTP

/// `HTTPRequest.plainHTTP` makes the request swift-nio-extras' conversion makes, for every form
/// of request target, without its URL parse of origin-form targets.
@Suite("Request head conversion")
struct HTTPRequestHeadTests {
    @Test(
        "the same request as HTTPRequest(_:secure:splitCookie:)",
        arguments: [
            "/", "/thing/obj1", "/thing?name[in]=a,b&_expand=2", "/a%20b/%zz?x=%", "//double/slash", "/path#fragment", "/ünicode",
            "http://example.com/thing?x=1", "http://example.com", "*", "example.com:443", "relative/path",
        ])
    func sameAsTheLibrary(target: String) throws {
        var headers = HTTPHeaders([("Host", "api.example.com"), ("Accept", "application/json"), ("Cookie", "a=1; b=2")])
        headers.add(name: "X-Repeated", value: "1")
        headers.add(name: "X-Repeated", value: "2")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        let expected = try HTTPRequest(head, secure: false, splitCookie: false)
        #expect(try HTTPRequest.plainHTTP(head) == expected)
    }

    @Test("a method swift-http-types refuses is refused")
    func invalidMethod() {
        let head = HTTPRequestHead(version: .http1_1, method: .RAW(value: "BAD METHOD"), uri: "/")
        #expect(throws: (any Error).self) { try HTTPRequest.plainHTTP(head) }
    }
}
