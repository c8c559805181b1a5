import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// The HTML5 app through the admin API: the same deploy, rollback and promote as
/// `stackmob-server html5`, for operators only, audited; a deploy reads an uploaded archive or a
/// directory under `html5.deploy_root`, never another path the server can read.
@Suite("Admin API: HTML5 deploy, rollback, promote")
struct AdminHTML5Tests {
    /// A deploy root of the test's own, apart from the data directory.
    static func deployRoot() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-sites-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.path
    }

    /// A site under `root` holding `index.html`; returns its name, relative to the root.
    static func site(_ text: String, in root: String) throws -> String {
        let name = "site-\(UUID().uuidString)"
        let directory = URL(fileURLWithPath: root).appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: directory.appendingPathComponent("index.html"))
        return name
    }

    @Test("deploy two versions, roll back, promote to production; bad input is a 400 and changes nothing")
    func deployRollbackPromote() async throws {
        let root = try Self.deployRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await AdminAPITests.run(configure: { $0.html5.deployRoot = root }) { client in
            let base = "/_admin/environments/development/html5"
            #expect(try await client.get(base).status == .unauthorized)
            #expect(try await client.post(base + "/deploy", ["directory": .string(try Self.site("x", in: root))]).status == .unauthorized)
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            // Nothing deployed: no current version (JSON answers leave nulls out).
            #expect(try await client.get(base, headers: auth).object == ["versions": []])

            let first = try await client.post(base + "/deploy", ["directory": .string(try Self.site("<h1>one</h1>", in: root))], headers: auth)
            #expect(first.object?["version"] == 1, "\(first.text)")
            // An absolute path inside the root is the same as a relative one.
            let absolute = root + "/" + (try Self.site("<h1>two</h1>", in: root))
            #expect(try await client.post(base + "/deploy", ["directory": .string(absolute)], headers: auth).object?["version"] == 2)
            #expect(try await client.get(base, headers: auth).object == ["current": 2, "versions": [1, 2]])
            #expect(try await client.post(base + "/rollback", .object([:]), headers: auth).object?["version"] == 1)
            #expect(try await client.get(base, headers: auth).object?["current"] == 1)

            let wrongPlace = try await client.post(base + "/promote", .object([:]), headers: auth)
            #expect(wrongPlace.status == .badRequest)
            let promoted = try await client.post("/_admin/environments/production/html5/promote", .object([:]), headers: auth)
            #expect(promoted.object?["version"] == 1, "\(promoted.text)")
            #expect(try await client.get("/_admin/environments/production/html5", headers: auth).object?["current"] == 1)

            let missing = try await client.post(base + "/deploy", ["directory": "no-such-site"], headers: auth)
            #expect(missing.status == .badRequest)
            #expect(missing.error == "The directory 'no-such-site' does not exist")
            #expect(try await client.post(base + "/deploy", .object([:]), headers: auth).status == .badRequest)
            #expect(try await client.get(base, headers: auth).object == ["current": 1, "versions": [1, 2]])

            let actions = (try await client.get("/_admin/audit", headers: auth).array ?? []).compactMap { $0.objectValue?["action"]?.stringValue }
            #expect(actions.filter { $0.hasPrefix("html5.") }.sorted() == ["html5.deploy", "html5.deploy", "html5.promote", "html5.rollback"])
        }
    }

    @Test("a directory deploy of the data directory, or of anything outside the deploy root, is refused and publishes nothing")
    func directoryOutsideRootRefused() async throws {
        let root = try Self.deployRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The data directory reached through a link inside the root.
        let dataLink = root + "/data"
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.html5.deployRoot = root
            try await AdminTool.addOperator(
                configuration: configuration, storage: try TestServer.storage(configuration), name: "ops", password: AdminAPITests.password,
                logger: TestServer.quietLogger)
            try FileManager.default.createSymbolicLink(atPath: dataLink, withDestinationPath: directory)
            try await TestServer.run(configuration: configuration) { client in
                let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
                let base = "/_admin/environments/development/html5"
                for attempt in [directory, "data", "../", "/etc", root + "/../", (directory as NSString).deletingLastPathComponent] {
                    let refused = try await client.post(base + "/deploy", ["directory": .string(attempt)], headers: auth)
                    #expect(refused.status == .badRequest, "\(attempt): \(refused.text)")
                    #expect(refused.error?.contains("html5.deploy_root") == true, "\(attempt): \(refused.text)")
                    // The message names no path of the server's.
                    #expect(refused.error?.contains(directory) == false && refused.error?.contains(root) == false)
                }
                #expect(try await client.get(base, headers: auth).object == ["versions": []])
                #expect(!FileManager.default.fileExists(atPath: directory + "/html5/development/current"))
            }
        }
    }

    @Test("without html5.deploy_root the admin API deploys archives only")
    func noRootNoDirectories() async throws {
        let root = try Self.deployRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await AdminAPITests.run { client in
            let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
            let refused = try await client.post(
                "/_admin/environments/development/html5/deploy", ["directory": .string(root + "/" + (try Self.site("x", in: root)))], headers: auth)
            #expect(refused.status == .badRequest)
            #expect(refused.error?.contains(root) == false)
        }
    }

    @Test("a .tar and a .tar.gz upload are deployed and served; links, absolute paths and .. entries are refused with nothing written")
    func archives() async throws {
        try await TestServer.withDataDirectory { directory in
            var configuration = TestServer.configuration(dataDirectory: directory)
            configuration.html5.development.listen = true
            configuration.html5.development.port = 0
            try await AdminTool.addOperator(
                configuration: configuration, storage: try TestServer.storage(configuration), name: "ops", password: AdminAPITests.password,
                logger: TestServer.quietLogger)
            try await TestServer.run(configuration: configuration) { client in
                let auth = ["Authorization": "Bearer \(try await AdminAPITests.signIn(client).token)"]
                let deploy = "/_admin/environments/development/html5/deploy"
                let plain = TarArchive([
                    .directory("assets/"), .file("index.html", "<h1>tar</h1>"), .file("assets/app.js", "console.log(1)"),
                ])
                let first = try await client.request(.post, deploy, bytes: plain.bytes, headers: auth.merging(["Content-Type": "application/x-tar"]) { $1 })
                #expect(first.object?["version"] == 1, "\(first.text)")
                let site = "\(directory)/html5/development/current/site"
                #expect(try String(contentsOfFile: site + "/index.html", encoding: .utf8) == "<h1>tar</h1>")
                #expect(try String(contentsOfFile: site + "/assets/app.js", encoding: .utf8) == "console.log(1)")

                let gzipped = try TarArchive.gzip(TarArchive([.file("./index.html", "<h1>gz</h1>")]).bytes)
                let second = try await client.request(.post, deploy, bytes: gzipped, headers: auth.merging(["Content-Type": "application/gzip"]) { $1 })
                #expect(second.object?["version"] == 2, "\(second.text)")
                #expect(try String(contentsOfFile: site + "/index.html", encoding: .utf8) == "<h1>gz</h1>")

                let escapes: [(TarArchive, String)] = [
                    (TarArchive([.file("index.html", "x"), .file("../escaped.html", "owned")]), "../escaped.html"),
                    (TarArchive([.file("/tmp/absolute-\(UUID().uuidString).html", "owned")]), "/tmp/absolute"),
                    (TarArchive([.file("index.html", "x"), .symlink("keys.json", to: directory + "/keys.json")]), "keys.json"),
                    (TarArchive([.file("index.html", "x"), .hardlink("copy", to: "/etc/passwd")]), "copy"),
                ]
                for (archive, name) in escapes {
                    let refused = try await client.request(.post, deploy, bytes: archive.bytes, headers: auth.merging(["Content-Type": "application/x-tar"]) { $1 })
                    #expect(refused.status == .badRequest, "\(name): \(refused.text)")
                    #expect(refused.error?.contains(name) == true, "\(name): \(refused.text)")
                }
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/html5/escaped.html"))
                #expect(!FileManager.default.fileExists(atPath: "\(directory)/html5/development/escaped.html"))
                let garbage = try await client.request(.post, deploy, bytes: Array("not a tar".utf8), headers: auth.merging(["Content-Type": "application/x-tar"]) { $1 })
                #expect(garbage.status == .badRequest)
                // Nothing refused was published, and no unpacked upload is left behind.
                #expect(try await client.get("/_admin/environments/development/html5", headers: auth).object == ["current": 2, "versions": [1, 2]])
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: "\(directory)/html5/development").filter { $0.hasPrefix(".upload") }
                #expect(leftovers.isEmpty)

                // While `stackmob-server html5` deploys development, the admin API's deploy and
                // rollback are a 409 that changes nothing.
                try await DeployLockHolder.holding("\(directory)/html5/development") {
                    let busy = try await client.request(.post, deploy, bytes: plain.bytes, headers: auth.merging(["Content-Type": "application/x-tar"]) { $1 })
                    #expect(busy.status == .conflict, "\(busy.text)")
                    #expect(busy.error == "Another deploy, rollback or promote of development is running; try again when it has finished")
                    let rollback = try await client.post("/_admin/environments/development/html5/rollback", .object([:]), headers: auth)
                    #expect(rollback.status == .conflict, "\(rollback.text)")
                }
                try await DeployLockHolder.holding("\(directory)/html5/production") {
                    let promote = try await client.post("/_admin/environments/production/html5/promote", .object([:]), headers: auth)
                    #expect(promote.status == .conflict, "\(promote.text)")
                    #expect(promote.error == "Another deploy, rollback or promote of production is running; try again when it has finished")
                }
                #expect(try await client.get("/_admin/environments/development/html5", headers: auth).object == ["current": 2, "versions": [1, 2]])
                #expect(try await client.get("/_admin/environments/production/html5", headers: auth).object == ["versions": []])
            }
        }
    }
}

/// A tar archive (ustar) made in the test, with entries `tar` itself would refuse to write.
struct TarArchive {
    enum Entry {
        case file(String, String)
        case directory(String)
        case symlink(String, to: String)
        case hardlink(String, to: String)
    }

    let bytes: [UInt8]

    init(_ entries: [Entry]) {
        var bytes: [UInt8] = []
        for entry in entries {
            switch entry {
            case .file(let name, let content):
                bytes += Self.header(name: name, size: content.utf8.count, type: "0")
                bytes += Array(content.utf8) + [UInt8](repeating: 0, count: (512 - content.utf8.count % 512) % 512)
            case .directory(let name):
                bytes += Self.header(name: name, size: 0, type: "5")
            case .symlink(let name, let target):
                bytes += Self.header(name: name, size: 0, type: "2", link: target)
            case .hardlink(let name, let target):
                bytes += Self.header(name: name, size: 0, type: "1", link: target)
            }
        }
        self.bytes = bytes + [UInt8](repeating: 0, count: 1024)
    }

    private static func header(name: String, size: Int, type: Character, link: String = "") -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int) {
            for (index, byte) in text.utf8.enumerated() { header[offset + index] = byte }
        }
        put(name, at: 0)
        put("0000644", at: 100)
        put("0000000", at: 108)
        put("0000000", at: 116)
        put(String(format: "%011o", size), at: 124)
        put("00000000000", at: 136)
        put(String(type), at: 156)
        put(link, at: 157)
        put("ustar", at: 257)
        put("00", at: 263)
        put("        ", at: 148)
        let sum = header.reduce(0) { $0 + Int($1) }
        put(String(format: "%06o", sum) + "\0 ", at: 148)
        return header
    }

    /// The bytes gzip-compressed by the system's `gzip`.
    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-tar-\(UUID().uuidString)")
        try Data(bytes).write(to: input)
        defer { try? FileManager.default.removeItem(at: input.appendingPathExtension("gz")) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", input.path]
        try process.run()
        process.waitUntilExit()
        return Array(try Data(contentsOf: input.appendingPathExtension("gz")))
    }
}
