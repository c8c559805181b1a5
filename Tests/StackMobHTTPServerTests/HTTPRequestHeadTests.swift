import HTTPTypes
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Testing

@testable import StackMobHTTPServer

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

    @Test(
        "the same header fields, raw names and authority as HTTPRequest(_:secure:splitCookie:)",
        arguments: [
            // The names of KnownFieldNames as clients spell them, and other spellings of them.
            [
                ("Host", "api.example.com"), ("Accept", "application/vnd.stackmob+json; version=0"), ("X-StackMob-API-Key", "k"),
                ("User-Agent", "StackMob (Java Client; 1.3)"), ("Content-Type", "application/json"), ("Content-Length", "0"),
                ("Authorization", "MAC id=\"a\""), ("Connection", "keep-alive"), ("Accept-Encoding", "gzip"),
                ("Accept-Language", "en"), ("Cookie", "a=1; b=2"), ("Origin", "http://o"), ("Referer", "http://r"),
                ("If-None-Match", "\"x\""), ("X-StackMob-Expand", "2"), ("X-StackMob-Relations", "a=b"),
                ("X-StackMob-OrderBy", "a:asc"), ("X-StackMob-Select", "a"), ("X-StackMob-FieldTypes", ""),
                ("X-StackMob-User-Agent", "StackMob (JS; 0.9.2)"), ("Range", "objects=0-9"), ("X-HTTP-Method-Override", "PUT"),
                ("Access-Control-Request-Method", "POST"), ("Access-Control-Request-Headers", "x-stackmob-api-key"),
            ],
            [
                ("host", "first.example.com"), ("HOST", "second.example.com"), ("accept", "*/*"), ("X-Stackmob-Api-Key", "k"),
                ("x-stackmob-expand", "1"), ("RANGE", "objects=0-1"), ("Hosts", "not the host"), ("Acceptx", "y"),
            ],
            // No Host; a name that is not a token; values with bytes a field may not hold.
            [("Bad Name", "dropped"), ("Accept", "a\u{01}b"), ("X-Tab", "a\tb"), ("Accept", "second"), ("X-Empty", "")],
            [],
        ])
    func sameFields(headers: [(String, String)]) throws {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/thing", headers: HTTPHeaders(headers))
        let expected = try HTTPRequest(head, secure: false, splitCookie: false)
        let converted = try HTTPRequest.plainHTTP(head)
        #expect(converted.authority == expected.authority)
        #expect(converted.headerFields.map { [$0.name.rawName, $0.name.canonicalName, $0.value] }
            == expected.headerFields.map { [$0.name.rawName, $0.name.canonicalName, $0.value] })
    }

    @Test("a known name is taken only when spelt as the table has it")
    func knownNames() {
        #expect(KnownFieldNames.name(spelt: "X-StackMob-API-Key")?.rawName == "X-StackMob-API-Key")
        #expect(KnownFieldNames.name(spelt: "Host")?.canonicalName == "host")
        #expect(KnownFieldNames.name(spelt: "x-stackmob-api-key") == nil)
        #expect(KnownFieldNames.name(spelt: "Hosts") == nil)
        #expect(KnownFieldNames.name(spelt: "") == nil)
        #expect(KnownFieldNames.name(spelt: String(repeating: "A", count: 300)) == nil)
    }

    @Test("a method swift-http-types refuses is refused")
    func invalidMethod() {
        let head = HTTPRequestHead(version: .http1_1, method: .RAW(value: "BAD METHOD"), uri: "/")
        #expect(throws: (any Error).self) { try HTTPRequest.plainHTTP(head) }
    }
}
