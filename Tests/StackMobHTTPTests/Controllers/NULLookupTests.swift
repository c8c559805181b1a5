import Foundation
import HTTPTypes
import StackMobCore
import StackMobTestSupport
import Testing

/// U+0000 in what a request looks up: an id or field name in the path, a query key or value, a
/// login in a form body, a push token or user id. No stored string holds one (`NULStringTests`),
/// and neither engine can match one (SQLite's text binding ends at it, so `/todo/a%00b` acted on
/// `a`; PostgreSQL refuses it): every such request is a 400 with one body, on both engines, and
/// leaves the object or user it would have cut the string to untouched.
@Suite("Lookups holding U+0000")
struct NULLookupTests {
    static let refusal = #"{"error":"The request holds U+0000 (%00), which no id, field or value may contain"}"#

    static func expectRefused(_ response: APIResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == .badRequest, "\(what): \(response.text)", sourceLocation: sourceLocation)
        #expect(response.text == refusal, "\(what)", sourceLocation: sourceLocation)
    }

    @Test("GET, HEAD, PUT and DELETE /<schema>/<id> with %00 in the id are a 400, and object a is untouched")
    func objectByID() async throws {
        try await TestServer.run { client in
            let stored = try await client.create("todo", ["todo_id": "a", "title": "keep", "tags": ["x"]])
            for path in ["/todo/a%00b", "/todo/a%00", "/todo/%00a", "/todo/a%00%00"] {
                Self.expectRefused(try await client.get(path), "GET \(path)")
                Self.expectRefused(try await client.put(path, ["title": "changed"]), "PUT \(path)")
                Self.expectRefused(try await client.delete(path), "DELETE \(path)")
                let head = try await client.head(path)
                #expect(head.status == .badRequest)
                #expect(head.body.isEmpty)
            }
            // A Java-family client's DELETE gets the same JSON refusal, not its legacy text.
            Self.expectRefused(try await client.delete("/todo/a%00b", headers: ["User-Agent": "StackMob (Java Client; 1.3.8)"]), "Java DELETE")
            #expect(try await client.get("/todo/a").object == stored)
            #expect(try await client.get("/todo").array == [.object(stored)])
        }
    }

    @Test("a query with %00 in a value or a key is a 400, on GET, HEAD and DELETE /<schema>")
    func query() async throws {
        try await TestServer.run { client in
            let stored = try await client.create("todo", ["todo_id": "a", "name": "a", "tags": ["a"]])
            for query in [
                "name=a%00b", "name=%00", "name[in]=b,a%00", "tags=a%00", "todo_id[ne]=a%00", "na%00me=a", "name%00=a", "name%5Blt%5D%00=b",
                "[or1].name=a%00&[or1].name=b", "_expand=1%00",
            ] {
                Self.expectRefused(try await client.get("/todo?\(query)"), "GET ?\(query)")
                Self.expectRefused(try await client.delete("/todo?\(query)"), "DELETE ?\(query)")
                #expect(try await client.head("/todo?\(query)").status == .badRequest)
            }
            // Only %00 itself: %2500 is the text "%00", and %000 a NUL then a 0, both as sent.
            #expect(try await client.get("/todo?name=%2500").array == [])
            Self.expectRefused(try await client.get("/todo?name=a%000"), "%000")
            #expect(try await client.get("/todo/a").object == stored)
        }
    }

    @Test("PUT, POST and DELETE /<schema>/<id>/<field> with %00 in the id, the field or the values are a 400")
    func relatedPaths() async throws {
        try await TestServer.run { client in
            let stored = try await client.create("todo", ["todo_id": "a", "tags": ["x", "y"]])
            for path in ["/todo/a%00b/tags", "/todo/a/tags%00", "/todo/a/ta%00gs"] {
                Self.expectRefused(try await client.put(path, ["z"]), "PUT \(path)")
                Self.expectRefused(try await client.post(path, [["tags_id": "t1"]]), "POST \(path)")
                Self.expectRefused(try await client.delete(path + "/x"), "DELETE \(path)/x")
            }
            Self.expectRefused(try await client.delete("/todo/a/tags/x%00"), "DELETE values")
            Self.expectRefused(try await client.delete("/todo/a/tags/y,x%00b"), "DELETE values")
            #expect(try await client.get("/todo/a").object == stored)
            #expect(try await client.get("/tags").status == .notFound)
        }
    }

    @Test("the refusal carries the server's headers and, for a cross-origin request, the CORS headers")
    func headers() async throws {
        try await TestServer.run { client in
            let origin = "https://app.example.com"
            let response = try await client.get("/todo/a%00b", headers: ["Origin": origin])
            Self.expectRefused(response, "CORS")
            #expect(response.header("Access-Control-Allow-Origin") == origin)
            #expect(response.header("X-StackMob-Time-MS") != nil)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            // Also before the API key is checked: the target is wrong whoever sends it.
            Self.expectRefused(try await client.withoutKey.get("/todo/a%00b"), "without a key")
        }
    }

    @Test("a login, refresh or forgotPassword whose form or JSON body holds U+0000 is a 400, and ann is untouched")
    func userForms() async throws {
        try await TestServer.withDataDirectory { directory in
            try await TestServer.run(configuration: TestServer.configuration(dataDirectory: directory)) { client in
                let ann = try await client.create("user", ["username": "ann", "password": "pw", "email": "ann@example.com"])
                let token = [("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")]
                for fields in [
                    [("username", "ann\u{0}x"), ("password", "pw")], [("username", "ann\u{0}"), ("password", "pw")],
                    [("username", "ann"), ("password", "pw\u{0}")], [("username", "ann"), ("password", "pw"), ("new_password", "n\u{0}")],
                    [("username", "ann"), ("password", "pw"), ("user\u{0}name", "x")],
                ] {
                    Self.expectRefused(try await client.postForm("/user/accessToken", fields + token), "accessToken \(fields)")
                }
                // The JSON fallback of the token endpoints, and the GET variant's query.
                Self.expectRefused(
                    try await client.request(.post, "/user/accessToken", rawBody: #"{"username":"ann\u0000x","password":"pw"}"#), "JSON accessToken")
                Self.expectRefused(try await client.get("/user/accessToken?username=ann%00x&password=pw&token_type=mac"), "GET accessToken")
                let session = try await client.login([("username", "ann"), ("password", "pw")])
                let refresh = [("refresh_token", session.refreshToken + "\u{0}"), ("grant_type", "refresh_token")]
                Self.expectRefused(try await client.postForm("/user/refreshToken", refresh), "refreshToken")
                Self.expectRefused(try await client.postForm("/user/forgotPassword", [("username", "ann\u{0}x")]), "forgotPassword form")
                Self.expectRefused(
                    try await client.request(.post, "/user/forgotPassword", rawBody: #"{"username":"ann\u0000"}"#), "forgotPassword JSON")
                // No temporary password went out, the refresh token still works, ann is unchanged.
                let outbox = try await Outbox.read(
                    storage: try TestServer.storage(TestServer.configuration(dataDirectory: directory)), environment: .development)
                #expect(outbox.isEmpty)
                let refreshed = try await client.postForm(
                    "/user/refreshToken", [("refresh_token", session.refreshToken), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
                #expect(refreshed.status == .ok, "\(refreshed.text)")
                #expect(try await client.get("/user/ann").object == ann)
                _ = try await client.login([("username", "ann"), ("password", "pw")])
            }
        }
    }

    @Test("push: %00 in a path token or a query user, U+0000 in a body's token or user id, is a 400 and registers nothing")
    func push() async throws {
        try await TestServer.run { api in
            try await PushHost.withClient(port: api.port) { push in
                #expect(try await push.pushSigned(.put, "/tokens/android/gcm-1", json: ["user": "ann"]).status == .ok)
                let cases: [(HTTPRequest.Method, String, JSONValue?)] = [
                    (.put, "/tokens/android/gcm-1%00x", ["user": "ann"]), (.delete, "/tokens/android/gcm-1%00", nil),
                    (.get, "/tokens?user=ann%00", nil), (.get, "/get_tokens_for_users_universal?userIds=ann%00x", nil),
                    (.put, "/tokens/android/gcm-2", ["user": "ann\u{0}x"]),
                    (.post, "/register_device_token_universal", ["userId": "ann\u{0}", "token": ["token": "gcm-3", "type": "android"]]),
                    (.post, "/register_device_token_universal", ["userId": "ann", "token": ["token": "gcm-1\u{0}", "type": "android"]]),
                    (.post, "/remove_token_universal", ["token": "gcm-1\u{0}x", "type": "android"]),
                    (.post, "/notifications", ["payload": ["alert": "hi"], "users": ["ann\u{0}x"]]),
                    (.post, "/push_users_universal", ["kvPairs": ["alert": "hi"], "userIds": ["ann\u{0}"]]),
                ]
                for (method, target, body) in cases {
                    Self.expectRefused(try await push.pushSigned(method, target, json: body), "\(method) \(target)")
                }
                let listed = try await push.pushSigned(.get, "/tokens?user=ann").array
                #expect(listed?.compactMap { $0.objectValue?["token"] } == ["gcm-1"])
            }
        }
    }

    @Test("the admin API refuses %00 in its paths too, before its authentication")
    func admin() async throws {
        try await TestServer.run { client in
            _ = try await client.create("todo", ["todo_id": "a"])
            Self.expectRefused(try await client.withoutKey.get("/_admin/environments/development/objects/todo/a%00b"), "admin GET")
            Self.expectRefused(try await client.withoutKey.delete("/_admin/environments/development/objects/todo?todo_id=a%00"), "admin DELETE")
            #expect(try await client.get("/todo/a").status == .ok)
        }
    }
}
