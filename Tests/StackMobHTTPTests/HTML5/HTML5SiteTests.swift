import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The HTML5 site over real HTTP, as a browser fetches it: pages, assets, validators, ranges,
/// gzip, and paths that try to leave the site.
@Suite("HTML5 hosting: the static site")
struct HTML5SiteTests {
    static let script = String(repeating: "console.log('StackMob');\n", count: 200)
    static let files = [
        "index.html": "<h1>home</h1>", "app.js": script, "img/logo.png": "PNGDATA", "docs/index.html": "<h1>docs</h1>",
        "data.bin42": "raw", ".env": "SECRET=1", "empty/.keep": "",
    ]

    @Test("pages and assets with their content types, index.html for directories, no listings, nosniff")
    func pagesAndAssets() async throws {
        try await HTML5Fixture.run { site in
            try site.deployments.deploy(directory: try site.source(Self.files), to: .development)
            let home = try await site.page("/")
            #expect(home.status == .ok)
            #expect(home.text == "<h1>home</h1>")
            #expect(home.header("Content-Type") == "text/html; charset=utf-8")
            #expect(home.header("X-Content-Type-Options") == "nosniff")
            #expect(home.header("Cache-Control") == "no-cache")
            #expect(home.header("ETag")?.hasPrefix("\"1-") == true)
            #expect(home.header("Last-Modified")?.hasSuffix(" GMT") == true)
            #expect(try await site.page("/index.html").text == "<h1>home</h1>")
            let script = try await site.page("/app.js")
            #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(script.text == Self.script)
            #expect(try await site.page("/img/logo.png").header("Content-Type") == "image/png")
            #expect(try await site.page("/data.bin42").header("Content-Type") == "application/octet-stream")
            // A directory: redirected to its slash form, then its index.html; none → 404, never a listing.
            let redirect = try await site.page("/docs?x=1")
            #expect(redirect.status == .movedPermanently)
            #expect(redirect.header("Location") == "/docs/?x=1")
            #expect(try await site.page("/docs/").text == "<h1>docs</h1>")
            // Never a protocol-relative redirect to another host.
            #expect(try await site.page("//docs").header("Location") == "/docs/")
            let listing = try await site.page("/img/")
            #expect(listing.status == .notFound)
            #expect(listing.error?.isEmpty == false)
            #expect(listing.header("Content-Type") == "application/json; charset=utf-8")
            #expect(try await site.page("/missing.css").status == .notFound)
            // Hidden files are neither deployed nor served.
            #expect(try await site.page("/.env").status == .badRequest)
            let head = try await site.page("/", method: .head)
            #expect(head.status == .ok && head.body.isEmpty && head.header("Content-Length") == "13")
            let post = try await site.page("/", method: .post)
            #expect(post.status == .methodNotAllowed)
            #expect(post.error != nil)
            // Production has nothing deployed: a JSON 404 that says so.
            let production = try await site.page("/", .production)
            #expect(production.status == .notFound)
            #expect(production.error == "No HTML5 app is deployed to production")
        }
    }

    @Test("ETag and Last-Modified give 304; byte ranges give 206 and 416; If-Range")
    func validatorsAndRanges() async throws {
        try await HTML5Fixture.run { site in
            try site.deployments.deploy(directory: try site.source(Self.files), to: .development)
            let first = try await site.page("/app.js")
            let etag = try #require(first.header("ETag"))
            let lastModified = try #require(first.header("Last-Modified"))
            for headers in [["If-None-Match": etag], ["If-None-Match": "\"x\", W/\(etag)"], ["If-Modified-Since": lastModified]] {
                let cached = try await site.page("/app.js", headers: headers)
                #expect(cached.status == .notModified, "\(headers)")
                #expect(cached.body.isEmpty)
                #expect(cached.header("ETag") == etag)
            }
            #expect(try await site.page("/app.js", headers: ["If-None-Match": "\"other\""]).status == .ok)
            let size = Self.script.utf8.count
            let range = try await site.page("/app.js", headers: ["Range": "bytes=0-6", "Accept-Encoding": "gzip"])
            #expect(range.status == .partialContent)
            #expect(range.text == "console")
            #expect(range.header("Content-Range") == "bytes 0-6/\(size)")
            #expect(range.header("Content-Encoding") == nil)
            let suffix = try await site.page("/app.js", headers: ["Range": "bytes=-3"])
            #expect(suffix.text == ");\n")
            let unsatisfiable = try await site.page("/app.js", headers: ["Range": "bytes=\(size)-"])
            #expect(unsatisfiable.status == .rangeNotSatisfiable)
            #expect(unsatisfiable.header("Content-Range") == "bytes */\(size)")
            // If-Range with another validator: the whole file.
            let stale = try await site.page("/app.js", headers: ["Range": "bytes=0-6", "If-Range": "\"old\""])
            #expect(stale.status == .ok && stale.body.count == size)
            #expect(try await site.page("/app.js", headers: ["Range": "bytes=0-6", "If-Range": etag]).status == .partialContent)
        }
    }

    @Test("gzip when the client accepts it, from the copy made at deploy time")
    func gzip() async throws {
        try await HTML5Fixture.run { site in
            try site.deployments.deploy(directory: try site.source(Self.files), to: .development)
            let compressed = try await site.page("/app.js", headers: ["Accept-Encoding": "br, gzip;q=0.8"])
            #expect(compressed.header("Content-Encoding") == "gzip")
            #expect(compressed.header("Vary") == "Accept-Encoding")
            #expect(compressed.header("Content-Length") == String(compressed.body.count))
            #expect(compressed.body.count < Self.script.utf8.count / 4)
            #expect(Array(compressed.body.prefix(2)) == [0x1f, 0x8b])
            #expect(try await Self.gunzip(compressed.body, in: site.dataDirectory) == Self.script)
            let etag = try #require(compressed.header("ETag"))
            #expect(try await site.page("/app.js", headers: ["Accept-Encoding": "gzip", "If-None-Match": etag]).status == .notModified)
            for refused in ["gzip;q=0", "identity", "br"] {
                let plain = try await site.page("/app.js", headers: ["Accept-Encoding": refused])
                #expect(plain.header("Content-Encoding") == nil && plain.text == Self.script, "\(refused)")
            }
            // Too small to gain, or not compressible: never gzipped.
            #expect(try await site.page("/img/logo.png", headers: ["Accept-Encoding": "gzip"]).header("Content-Encoding") == nil)
        }
    }

    @Test(
        "paths that leave the site are refused, encoded or not",
        arguments: [
            "/../../../../../secret.txt", "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/secret.txt", "/..%2f..%2f..%2f..%2f..%2fsecret.txt",
            "/docs/%2E%2E%2F%2E%2E%2F%2E%2E%2F%2E%2E%2F%2E%2E%2F%2E%2E%2Fsecret.txt", "/..%5c..%5c..%5c..%5c..%5csecret.txt",
            "/docs/..\\..\\..\\..\\..\\..\\secret.txt", "/index.html%00.png", "/.%2e/.%2e/.%2e/.%2e/.%2e/secret.txt",
            "/docs/./../../../../../../secret.txt", "/%zz", "//../../../../../secret.txt", "/%252e%252e/secret.txt",
        ])
    func traversal(path: String) async throws {
        try await HTML5Fixture.run { site in
            try site.deployments.deploy(directory: try site.source(Self.files), to: .development)
            try Data("TOP SECRET".utf8).write(to: URL(fileURLWithPath: site.dataDirectory).appendingPathComponent("secret.txt"))
            let connection = try await RawConnection.connect(port: site.ports[.development]!)
            try await connection.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let response = try await connection.response()
            await connection.close()
            // Refused by the site (400/404), or already by the HTTP parser.
            #expect(response.map { [400, 404].contains($0.status) } ?? true, "\(path) → \(String(describing: response?.status))")
            #expect(response?.body.contains("SECRET") != true)
        }
    }

    @Test("single-page-app fallback: page routes get index.html, missing assets stay 404")
    func spaFallback() async throws {
        try await HTML5Fixture.run(configure: { $0.html5.development.spaFallback = true }) { site in
            let source = try site.source(Self.files)
            try site.deployments.deploy(directory: source, to: .development)
            try site.deployments.deploy(directory: source, to: .production)
            let route = try await site.page("/todos/42")
            #expect(route.status == .ok && route.text == "<h1>home</h1>")
            #expect(route.header("Content-Type") == "text/html; charset=utf-8")
            #expect(try await site.page("/todos/missing.js").status == .notFound)
            // Production did not ask for it.
            #expect(try await site.page("/todos/42", .production).status == .notFound)
        }
    }

    /// The system's gzip, so the test checks the format, not our own reading of it.
    static func gunzip(_ bytes: [UInt8], in directory: String) async throws -> String {
        let file = URL(fileURLWithPath: directory).appendingPathComponent("body-\(UUID().uuidString).gz")
        try Data(bytes).write(to: file)
        let process = try ServerProcess(executable: URL(fileURLWithPath: "/usr/bin/gzip"), arguments: ["-dc", file.path], directory: directory)
        #expect(await process.waitForExit() == 0)
        return process.log
    }
}
