import HTTPTypes
@testable import StackMobHTTP
import Testing

@Suite("A header's value, read without the subscript")
struct HeaderValueTests {
    @Test("answers what HTTPFields' subscript answers: none, one, several, cookies, other names in between, any case")
    func sameAsSubscript() {
        let cases: [[HTTPField]] = [
            [],
            [HTTPField(name: .accept, value: "application/vnd.stackmob+json; version=0")],
            [HTTPField(name: .userAgent, value: "api"), HTTPField(name: .accept, value: "a"), HTTPField(name: .authorization, value: "MAC id=\"x\"")],
            [HTTPField(name: .accept, value: "a"), HTTPField(name: .userAgent, value: "h"), HTTPField(name: .accept, value: "b"), HTTPField(name: .accept, value: "")],
            [HTTPField(name: .cookie, value: "a=1"), HTTPField(name: .cookie, value: "b=2")],
            [HTTPField(name: HTTPField.Name("ACCEPT")!, value: "upper"), HTTPField(name: .accept, value: "lower")],
        ]
        let names: [HTTPField.Name] = [.accept, .authorization, .cookie, .userAgent, .origin]
        for fields in cases {
            let headers = HTTPFields(fields)
            for name in names {
                #expect(headers.value(of: name) == headers[name], "\(name) in \(fields)")
            }
        }
        #expect(HTTPFields([HTTPField(name: .cookie, value: "a=1"), HTTPField(name: .cookie, value: "b=2")]).value(of: .cookie) == "a=1; b=2")
    }
}
