import Foundation
import Testing

@testable import StackMobCore

@Suite("Configuration: html5")
struct ConfigurationHTML5Tests {
    @Test("defaults: no HTML5 listener, ports 8082 and 8083, five versions kept")
    func defaults() {
        let html5 = StackMobConfiguration().html5
        #expect(!html5.development.listen && !html5.production.listen)
        #expect(html5.development.port == 8082 && html5.production.port == 8083)
        #expect(html5.keepVersions == 5)
        #expect(html5.development.hosts.isEmpty && !html5.development.spaFallback)
    }

    @Test("html5 keys from a file tree")
    func fromTree() throws {
        let tree: JSONValue = [
            "html5": [
                "keep_versions": 2,
                "development": ["listen": true, "port": 9100, "hosts": ["dev.example.com"], "spa_fallback": true],
                "production": ["listen": "true", "port": "9101", "hosts": ["*.example.com", "example.com"]],
            ]
        ]
        let html5 = try ConfigurationDecoder.decode(try #require(tree.objectValue)).html5
        #expect(html5.keepVersions == 2)
        #expect(html5.development.listen && html5.development.port == 9100 && html5.development.spaFallback)
        #expect(html5.production.listen && html5.production.port == 9101 && !html5.production.spaFallback)
        #expect(html5.production.matches(host: "www.Example.com:8080"))
        #expect(html5.production.matches(host: "example.com"))
        #expect(!html5.production.matches(host: "badexample.com"))
        #expect(html5.development.matches(host: "dev.example.com"))
        #expect(!html5.development.matches(host: "api.dev.example.com"))
    }

    @Test(
        "start-up refuses clashing ports, bad host patterns, unknown keys",
        arguments: [
            (["development": ["listen": true, "port": 8080]], "html5.development.port"),
            (["development": ["listen": true, "port": 8081]], "html5.development.port"),
            (["development": ["listen": true, "port": 9000], "production": ["listen": true, "port": 9000]], "html5.production.port"),
            (["production": ["hosts": ["https://example.com"]]], "html5.production.hosts[0]"),
            (["production": ["hosts": ["example.com:80"]]], "html5.production.hosts[0]"),
            (["production": ["hosts": [""]]], "html5.production.hosts[0]"),
            (["development": ["hosts": ["a.test"]], "production": ["hosts": ["A.test"]]], "html5.production.hosts[0]"),
            (["development": ["hosts": "a.test"]], "html5.development.hosts"),
            (["development": ["port": 70000]], "html5.development.port"),
            (["keep_versions": 0], "html5.keep_versions"),
            (["staging": [:]], "html5.staging"),
            (["development": ["root": "/srv"]], "html5.development.root"),
        ] as [(JSONValue, String)])
    func validation(html5: JSONValue, key: String) throws {
        do {
            _ = try ConfigurationDecoder.decode(["html5": html5])
            Issue.record("accepted \(html5)")
        } catch let error as ConfigurationError {
            #expect(error.key == key, "\(error)")
        }
    }

    @Test("a request path must stay inside the site", arguments: ["/a/../b", "/%2e%2e", "/a%2fb", "/a%5cb", "/%00", "/.git/config", "/%zz", "a"])
    func sitePathRefusals(path: String) {
        #expect(throws: HTML5Error.invalidPath(path)) { try SitePath(path) }
    }

    @Test("site paths: decoded segments, .well-known allowed, // collapsed")
    func sitePaths() throws {
        #expect(try SitePath("/").segments == [])
        #expect(try SitePath("/docs/").isDirectory)
        #expect(try SitePath("//a%20b/c.html").segments == ["a b", "c.html"])
        #expect(try SitePath("/.well-known/assetlinks.json").segments == [".well-known", "assetlinks.json"])
        #expect(try SitePath("/todos/42").looksLikePage)
        #expect(try !SitePath("/app.js").looksLikePage)
    }
}
