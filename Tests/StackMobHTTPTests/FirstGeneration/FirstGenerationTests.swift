import Foundation
import HTTPTypes
import StackMobCore
import StackMobTestSupport
import Testing

/// StackMob's first-generation API, as the stackmob-ruby gem (`StackMob::Client`) and the 2011
/// iOS SDK speak it: `/api/<version>/<app>/<path>` and `/push/<version>/<app>/<endpoint>`,
/// signed with two-legged OAuth 1.0 over that path (the gem's body signed with
/// `oauth_body_hash`), no `Accept` version, no API key.
@Suite("The first-generation API: /api/<version>/<app>/… and /push/<version>/<app>/…")
struct FirstGenerationTests {
    /// What Ruby's Net::HTTP sends in place of StackMob's versioned `Accept`.
    static let headers = ["Accept": "*/*"]

    @Test("objects, queries, updates, deletes, listapi, users and push, signed as the gem signs, in development")
    func development() async throws {
        try await TestServer.run(configure: { $0.appName = "bookclub" }) { client in
            func send(_ method: HTTPRequest.Method, _ path: String, _ json: JSONValue? = nil) async throws -> APIResponse {
                try await client.oauth1(method, path, shape: .java, json: json, headers: Self.headers, signedBody: json == nil ? nil : .sent)
            }
            let created = try await send(.post, "/api/0/bookclub/book", ["book_id": "b1", "title": "Dune"])
            #expect(created.status == .created, "\(created.text)")
            #expect(try await send(.get, "/api/0/bookclub/book?title=Dune").array?.count == 1)
            let updated = try await send(.put, "/api/0/bookclub/book/b1", ["title": "Dune Messiah"])
            #expect(updated.status == .ok && updated.object?["title"] == "Dune Messiah", "\(updated.text)")
            // The first generation's own environment: today's API (version 0 in Accept) sees the same data.
            #expect(try await client.get("/book/b1").object?["title"] == "Dune Messiah")
            // An update naming the object in its body, as an early gem sent it.
            let named = try await send(.put, "/api/0/bookclub/book", ["book_id": "b1", "pages": 412])
            #expect(named.status == .ok && named.object?["pages"] == 412 && named.object?["title"] == "Dune Messiah", "\(named.text)")
            #expect(try await send(.put, "/api/0/bookclub/book", ["pages": 1]).error == "book_id is required")
            #expect(try await send(.put, "/api/0/bookclub/book", ["book_id": "nope", "pages": 1]).status == .notFound)
            let listed = try await send(.get, "/api/0/bookclub/listapi")
            #expect(listed.status == .ok, "\(listed.text)")
            #expect(try await send(.post, "/api/0/bookclub/user", ["username": "reader", "password": "pw"]).status == .created)
            #expect(try await send(.delete, "/api/0/bookclub/book?book_id=b1").status == .ok)
            #expect(try await client.get("/book/b1").status == .notFound)

            let registered = try await send(
                .post, "/push/0/bookclub/register_device_token_universal", ["userId": "reader", "token": ["type": "android", "token": "APA91-first"]])
            #expect(registered.status == .ok, "\(registered.text)")
            let tokens = try await send(.get, "/push/0/bookclub/get_tokens_for_users_universal?userIds=reader")
            #expect(tokens.text.contains("APA91-first"), "\(tokens.text)")
            // A send answers as the push host's own endpoint does.
            let message: JSONValue = ["userIds": ["reader"], "kvPairs": ["alert": "hello"]]
            let sent = try await send(.post, "/push/0/bookclub/push_users_universal", message)
            let today = try await client.oauth1(.post, "/push/push_users_universal", shape: .java, json: message)
            #expect(sent.status == today.status && sent.text == today.text, "\(sent.status.code) \(sent.text) / \(today.status.code) \(today.text)")
        }
    }

    @Test("production through version 1: users, their queries, listapi and push, with production's keys")
    func production() async throws {
        try await TestServer.run(configure: { $0.appName = "bookclub" }) { client in
            let production = client.production()
            func send(_ method: HTTPRequest.Method, _ path: String, _ json: JSONValue? = nil) async throws -> APIResponse {
                try await production.oauth1(method, path, shape: .java, json: json, headers: Self.headers, signedBody: json == nil ? nil : .sent)
            }
            #expect(try await send(.post, "/api/1/bookclub/user", ["username": "pro", "password": "pw"]).status == .created)
            #expect(try await send(.get, "/api/1/bookclub/user?username=pro").array?.count == 1)
            #expect(try await client.get("/user/pro").status == .notFound, "not in development")
            #expect(try await production.get("/user/pro").status == .ok)
            let registered = try await send(
                .post, "/push/1/bookclub/register_device_token_universal", ["userId": "pro", "token": ["type": "android", "token": "APA91-pro"]])
            #expect(registered.status == .ok, "\(registered.text)")
            #expect(try await send(.get, "/push/1/bookclub/get_tokens_for_users_universal?userIds=pro").text.contains("APA91-pro"))
        }
    }

    @Test("version 1 is production: its keys sign, development's do not; another app's name and a schema named api route as before")
    func productionAndOtherPaths() async throws {
        try await TestServer.run(configure: { $0.appName = "bookclub" }) { client in
            let production = client.production()
            let listed = try await production.oauth1(.get, "/api/1/bookclub/listapi", shape: .java, headers: Self.headers)
            #expect(listed.status == .ok, "\(listed.text)")
            let wrongKeys = try await client.oauth1(.get, "/api/1/bookclub/listapi", shape: .java, headers: Self.headers)
            #expect(wrongKeys.status == .unauthorized, "\(wrongKeys.text)")

            // The server's own paths keep the one path they have.
            let admin = try await client.oauth1(.get, "/api/0/bookclub/_admin/environments", shape: .java, headers: Self.headers)
            #expect(admin.status == .notFound, "\(admin.text)")
            // Not this app: not first-generation, so no such endpoint.
            let other = try await client.oauth1(.get, "/api/0/otherapp/book", shape: .java, headers: Self.headers)
            #expect(other.status == .notFound, "\(other.text)")
            // A schema named api keeps its routes.
            #expect(try await client.post("/api", ["api_id": "0", "note": "mine"]).status == .created)
            #expect(try await client.get("/api/0").object?["note"] == "mine")
        }
    }
}
