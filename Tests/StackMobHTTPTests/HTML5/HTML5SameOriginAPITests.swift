import Foundation
import HummingbirdTesting
import StackMobCore
import StackMobTestSupport
import Testing

/// The JS SDK in its default relative-path mode: API calls to the page's own origin, marked with
/// `X-StackMob-Proxy-Plain: stackmob-api`, answered by the API in process.
@Suite("HTML5 hosting: API calls on the page's origin")
struct HTML5SameOriginAPITests {
    static let proxyPlain = ["X-StackMob-Proxy-Plain": "stackmob-api"]

    @Test("a MAC-signed call through the HTML5 origin gets the same answer as on the API port")
    func signedCallOnSiteOrigin() async throws {
        try await HTML5Fixture.run { site in
            try site.deployments.deploy(directory: try site.source(["index.html": "<h1>app</h1>"]), to: .development)
            _ = try await site.api.post("/user", ["username": "ann", "password": "pw"])
            let sitePort = try #require(site.ports[.development])
            try await TestClient.withClient(host: "127.0.0.1", port: sitePort) { connection async throws in
                // The SDK's base is the page's hostname:port, and it signs over that host and port.
                let origin = StackMobClient(connection: connection, port: sitePort, publicKey: TestServer.developmentPublicKey, authority: "localhost:\(sitePort)")
                let login = try await origin.postForm(
                    "/user/accessToken", [("username", "ann"), ("password", "pw"), ("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")],
                    headers: Self.proxyPlain)
                #expect(login.status == .ok, "\(login.text)")
                let session = try #require(MACSession(login))
                let ts = Int64(Date().timeIntervalSince1970)
                let created = try await origin.signed(
                    .post, "/todo", session: session, ts: ts, port: sitePort, json: ["todo_id": "t1", "title": "from the page"], headers: Self.proxyPlain)
                #expect(created.status == .created, "\(created.text)")
                let viaSite = try await origin.signed(.get, "/user/loggedInUser", session: session, ts: ts, port: sitePort, headers: Self.proxyPlain)
                #expect(viaSite.status == .ok, "\(viaSite.text)")
                #expect(viaSite.object?["username"] == "ann")
                // The same session on the API port, signed over the API's port.
                try await TestClient.withClient(host: "127.0.0.1", port: site.api.port) { apiConnection async throws in
                    let api = StackMobClient(
                        connection: apiConnection, port: site.api.port, publicKey: TestServer.developmentPublicKey, authority: "localhost:\(site.api.port)")
                    let viaAPI = try await api.signed(.get, "/user/loggedInUser", session: session, ts: ts, port: site.api.port)
                    #expect(viaAPI.status == viaSite.status)
                    #expect(viaAPI.object == viaSite.object)
                    #expect(try await api.get("/todo/t1").object?["title"] == "from the page")
                }
                // The signature really covers the page's port: signed for another port, refused.
                let wrongPort = try await origin.signed(.get, "/user/loggedInUser", session: session, ts: ts, port: site.api.port, headers: Self.proxyPlain)
                #expect(wrongPort.status == .unauthorized)
            }
        }
    }

    @Test("the StackMob Accept alone marks an API call; a page request with the API's paths stays a page")
    func acceptMarksAPICall() async throws {
        try await HTML5Fixture.run { site in
            try site.deployments.deploy(directory: try site.source(["index.html": "<h1>app</h1>", "todo": "a file named todo"]), to: .development)
            _ = try await site.api.create("todo", ["todo_id": "t1"])
            let sitePort = try #require(site.ports[.development])
            // StackMobClient sends `Accept: application/vnd.stackmob+json; version=0`.
            try await TestClient.withClient(host: "127.0.0.1", port: sitePort) { connection async throws in
                let origin = StackMobClient(connection: connection, port: sitePort, publicKey: TestServer.developmentPublicKey)
                #expect(try await origin.get("/todo/t1").object?["todo_id"] == "t1")
                #expect(try await origin.get("/todo", headers: ["X-StackMob-Proxy": "stackmob-api"]).array?.count == 1)
                // The API's own errors, as on the API port.
                #expect(try await origin.withoutKey.get("/todo").status == .unauthorized)
            }
            #expect(try await site.page("/todo").text == "a file named todo")
            #expect(try await site.page("/todo", headers: Self.proxyPlain).status == .unauthorized)
        }
    }

    @Test("a Host listed in html5.<env>.hosts is that site on the API port; API calls there stay API calls")
    func hostPatternOnAPIPort() async throws {
        try await HTML5Fixture.run(configure: {
            $0.html5.development.listen = false
            $0.html5.production.listen = false
            $0.html5.development.hosts = ["dev.app.test"]
            $0.html5.production.hosts = ["*.app.example"]
        }) { site in
            try site.deployments.deploy(directory: try site.source(["index.html": "<h1>dev</h1>"]), to: .development)
            try site.deployments.deploy(directory: try site.source(["index.html": "<h1>prod</h1>"]), to: .production)
            let port = site.api.port
            #expect(try await HTML5Fixture.request(port: port, "/", authority: "dev.app.test:\(port)").text == "<h1>dev</h1>")
            #expect(try await HTML5Fixture.request(port: port, "/", authority: "www.app.example").text == "<h1>prod</h1>")
            let other = try await HTML5Fixture.request(port: port, "/index.html", authority: "api.app.test")
            #expect(other.status != .ok && other.error != nil)  // another host: the API
            let api = try await HTML5Fixture.request(
                port: port, "/todo", authority: "dev.app.test",
                headers: ["X-StackMob-API-Key": TestServer.developmentPublicKey, "X-StackMob-Proxy-Plain": "stackmob-api"])
            // The API's own answer for a schema never written (PROTOCOL §10.4: unknown names are
            // 404).
            #expect(api.status == .notFound && api.error == "No custom code method or schema named 'todo'", "\(api.text)")
        }
    }

    @Test("a binary field saved through the site links its file on the API origin, where it is served; the site redirects there")
    func binaryFieldThroughSite() async throws {
        try await HTML5Fixture.run { site in
            try site.deployments.deploy(directory: try site.source(["index.html": "<h1>app</h1>"]), to: .development)
            let sitePort = try #require(site.ports[.development])
            try await TestClient.withClient(host: "127.0.0.1", port: sitePort) { connection async throws in
                let origin = StackMobClient(connection: connection, port: sitePort, publicKey: TestServer.developmentPublicKey, authority: "localhost:\(sitePort)")
                let created = try await origin.post(
                    "/photo", ["pic": .string(BinaryFieldTests.envelope(Array("hello".utf8), filename: "hi.txt", type: "text/plain"))], headers: Self.proxyPlain)
                #expect(created.status == .created, "\(created.text)")
                let url = try #require(created.object?["pic"]?.stringValue)
                #expect(url.hasPrefix("http://localhost:\(site.api.port)/_files/development/photo/"))
                // As an <img> loads it: a page request, no StackMob headers, on the API origin.
                let path = try BinaryFieldTests.path(of: url)
                let file = try await site.api.withoutKey.get(path)
                #expect(file.status == .ok && file.text == "hello")
                // On the site's origin the same path leads there.
                let onSite = try await site.page(path)
                #expect(onSite.status == .movedPermanently && onSite.header("Location")?.hasSuffix(path) == true)
            }
        }
    }
}
