import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The web console (docs/operations.md, "Web console") over real HTTP: its sign-in, cookie flags,
/// CSRF refusals, that app keys never open it, that stored values are escaped, and that every page
/// renders.
@Suite("Web console: sign-in, cookies, CSRF, app keys, escaping, pages")
struct ConsoleTests {
    static let console = "/_admin/console"
    static let form = ["Content-Type": "application/x-www-form-urlencoded"]

    /// The sign-in page's CSRF cookie and token, then a signed-in `Cookie` header and the
    /// session's CSRF token (read from a page's hidden field, as a browser would).
    static func signIn(_ client: StackMobClient) async throws -> (cookie: String, csrf: String) {
        let page = try await client.withoutKey.get("\(console)/sign-in")
        let preCookie = try #require(page.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let token = try #require(hiddenCSRF(page.text))
        let signedIn = try await client.withoutKey.request(
            .post, "\(console)/sign-in", rawBody: "csrf=\(token)&name=ops&password=\(ConsoleTestsPassword.encoded)",
            headers: form.merging(["Cookie": preCookie]) { $1 })
        #expect(signedIn.status == .seeOther)
        let admin = signedIn.headers[values: .setCookie].first { $0.hasPrefix("sm_admin=") }
        let cookie = try #require(admin?.split(separator: ";").first.map(String.init))
        let overview = try await client.withoutKey.get("\(console)/development/schemas", headers: ["Cookie": cookie])
        return (cookie, try #require(hiddenCSRF(overview.text)))
    }

    static func hiddenCSRF(_ html: String) -> String? {
        guard let range = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test("sign-in: the form needs its CSRF cookie; the session cookie is HttpOnly and SameSite=Strict; wrong passwords are refused")
    func signInFlow() async throws {
        try await AdminAPITests.run { client in
            let page = try await client.withoutKey.get("\(Self.console)/sign-in")
            #expect(page.status == .ok)
            #expect(page.header("Content-Security-Policy")?.contains("script-src 'nonce-") == true)
            let preCookie = try #require(page.header("Set-Cookie"))
            #expect(preCookie.contains("HttpOnly") && preCookie.contains("SameSite=Strict"))
            let token = try #require(Self.hiddenCSRF(page.text))
            let cookie = String(preCookie.split(separator: ";")[0])
            // No token, or a token without its cookie (a cross-site form): refused before any password check.
            let noToken = try await client.withoutKey.request(
                .post, "\(Self.console)/sign-in", rawBody: "name=ops&password=x", headers: Self.form.merging(["Cookie": cookie]) { $1 })
            #expect(noToken.status == .forbidden)
            let noCookie = try await client.withoutKey.request(
                .post, "\(Self.console)/sign-in", rawBody: "csrf=\(token)&name=ops&password=\(ConsoleTestsPassword.encoded)", headers: Self.form)
            #expect(noCookie.status == .forbidden)
            let wrong = try await client.withoutKey.request(
                .post, "\(Self.console)/sign-in", rawBody: "csrf=\(token)&name=ops&password=guess", headers: Self.form.merging(["Cookie": cookie]) { $1 })
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains("Wrong name or password."))
            let right = try await client.withoutKey.request(
                .post, "\(Self.console)/sign-in", rawBody: "csrf=\(token)&name=ops&password=\(ConsoleTestsPassword.encoded)",
                headers: Self.form.merging(["Cookie": cookie]) { $1 })
            #expect(right.status == .seeOther)
            let session = try #require(right.headers[values: .setCookie].first { $0.hasPrefix("sm_admin=") })
            #expect(session.contains("HttpOnly") && session.contains("SameSite=Strict") && session.contains("Path=/_admin"))
        }
    }

    @Test("app keys do not open the console: without an operator session every page redirects to sign-in")
    func appKeysRefused() async throws {
        try await AdminAPITests.run { client in
            for path in ["overview", "schemas", "data?schema=user", "users", "push", "custom-code", "deploy", "mail"] {
                let response = try await client.get(
                    "\(Self.console)/development/\(path)",
                    headers: ["X-StackMob-API-Key": TestServer.developmentPrivateKey, "Authorization": "OAuth oauth_consumer_key=\"\(TestServer.developmentPublicKey)\""])
                #expect(response.status == .seeOther, "\(path)")
                #expect(response.header("Location") == "\(Self.console)/sign-in")
                #expect(!response.text.contains(TestServer.developmentPrivateKey))
            }
            let write = try await client.request(.post, "\(Self.console)/development/schemas", rawBody: "schema=sneaky", headers: Self.form)
            #expect(write.status == .seeOther)
            let (cookie, _) = try await Self.signIn(client)
            let schemas = try await client.withoutKey.get("\(Self.console)/development/schemas", headers: ["Cookie": cookie])
            #expect(!schemas.text.contains("sneaky"))
        }
    }

    @Test("CSRF: a console form without the session's token, or with another, changes nothing")
    func csrfRefused() async throws {
        try await AdminAPITests.run { client in
            let (cookie, csrf) = try await Self.signIn(client)
            let headers = Self.form.merging(["Cookie": cookie]) { $1 }
            let none = try await client.withoutKey.request(.post, "\(Self.console)/development/schemas", rawBody: "schema=alpha", headers: headers)
            #expect(none.status == .forbidden)
            let other = try await client.withoutKey.request(.post, "\(Self.console)/development/schemas", rawBody: "csrf=nope&schema=alpha", headers: headers)
            #expect(other.status == .forbidden)
            let signOut = try await client.withoutKey.request(.post, "\(Self.console)/sign-out", rawBody: "", headers: headers)
            #expect(signOut.status == .forbidden)
            var page = try await client.withoutKey.get("\(Self.console)/development/schemas", headers: ["Cookie": cookie])
            #expect(!page.text.contains(">alpha<"))
            let good = try await client.withoutKey.request(.post, "\(Self.console)/development/schemas", rawBody: "csrf=\(csrf)&schema=alpha", headers: headers)
            #expect(good.status == .seeOther)
            page = try await client.withoutKey.get("\(Self.console)/development/schemas", headers: ["Cookie": cookie])
            #expect(page.text.contains(">alpha<"))
            // The change went through the admin API: its audit log names the operator and the change, once.
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            let applied = (try await client.withoutKey.get("/_admin/audit", headers: auth).array ?? []).compactMap(\.objectValue)
                .filter { $0["action"] == "schemas.apply" }
            #expect(applied.count == 1 && applied.first?["operator"] == "ops")
        }
    }

    @Test("escaping: a stored <script> shows as text in the data browser and the object editor")
    func escaping() async throws {
        try await AdminAPITests.run { client in
            let (cookie, _) = try await Self.signIn(client)
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            let evil = "<script>alert('x')</script>\"'&"
            let created = try await client.withoutKey.post("/_admin/environments/development/objects/note", ["text": .string(evil)], headers: auth)
            #expect(created.status == .created || created.status == .ok, "\(created.text)")
            let id = try #require(created.object?["note_id"]?.stringValue)
            for path in ["data?schema=note", "data/note/\(id)", "overview"] {
                let page = try await client.withoutKey.get("\(Self.console)/development/\(path)", headers: ["Cookie": cookie])
                #expect(page.status == .ok, "\(path)")
                #expect(!page.text.contains("<script>alert"), "\(path)")
                #expect(!page.text.contains("alert('x')"), "\(path)")
            }
            let list = try await client.withoutKey.get("\(Self.console)/development/data?schema=note", headers: ["Cookie": cookie])
            #expect(list.text.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&#39;&amp;"))
        }
    }

    @Test("every page renders for a signed-in operator", arguments: [
        "development/overview", "development/overview?reveal=private", "development/schemas", "development/schemas/user",
        "development/data", "development/data?schema=user", "development/data/user/new", "development/users", "development/push?users=ann",
        "development/custom-code", "production/deploy", "development/mail", "development/traffic", "development/traffic?window=day",
        "production/traffic", "development/requests", "development/requests?status=4xx&path=%2Ftodo&user=user%2Fann&minutes=60", "development/backups",
    ])
    func pages(path: String) async throws {
        try await AdminAPITests.run { client in
            let (cookie, _) = try await Self.signIn(client)
            let page = try await client.withoutKey.get("\(Self.console)/\(path)", headers: ["Cookie": cookie])
            #expect(page.status == .ok, "\(page.text.prefix(300))")
            #expect(page.text.contains("Signed in as <strong>ops</strong>"))
            #expect(page.header("Cache-Control") == "no-store")
        }
    }

    @Test("the admin API's mail outbox: audited, needs a session, shows a password reset")
    func mailOutbox() async throws {
        try await AdminAPITests.run { client in
            #expect(try await client.get("/_admin/environments/development/mail_outbox").status == .unauthorized)
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            let user = try await client.post("/user", ["username": "ann", "password": "pw", "email": "ann@example.com"])
            #expect(user.status == .created || user.status == .ok, "\(user.text)")
            let reset = try await client.withoutKey.post("/_admin/environments/development/users/user/ann/forgot_password", [:], headers: auth)
            #expect(reset.status == .ok, "\(reset.text)")
            let outbox = try await client.withoutKey.get("/_admin/environments/development/mail_outbox", headers: auth)
            #expect(outbox.status == .ok)
            #expect(outbox.array?.first?.objectValue?["to"]?.stringValue == "ann@example.com")
            let audit = try await client.withoutKey.get("/_admin/audit", headers: auth)
            #expect(audit.array?.contains { $0.objectValue?["action"] == "mail_outbox.show" } == true)
        }
    }
}

enum ConsoleTestsPassword {
    /// `AdminAPITests.password`, form-encoded.
    static let encoded = AdminAPITests.password.replacingOccurrences(of: " ", with: "+")
}
