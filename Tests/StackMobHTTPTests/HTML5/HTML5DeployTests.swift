import Foundation
import StackMobCore
import StackMobTestSupport
import Synchronization
import Testing

/// Deploy, the atomic switch, rollback and promote, through `HTML5Deployments` (which the CLI and
/// the admin API call) and over HTTP.
@Suite("HTML5 hosting: deploy, rollback, promote")
struct HTML5DeployTests {
    @Test("a deploy switches atomically: concurrent readers see the old files or the new, never a mix or a miss")
    func atomicSwitch() async throws {
        try await HTML5Fixture.run { site in
            // Each version's two files hold the version's letter throughout.
            func files(_ letter: String) -> [String: String] {
                ["index.html": String(repeating: letter, count: 64 * 1024), "app.js": String(repeating: letter, count: 64 * 1024)]
            }
            try site.deployments.deploy(directory: try site.source(files("a")), to: .development)
            let sources = try ["b", "c", "d", "e", "f", "g"].map { try site.source(files($0)) }
            let done = DoneFlag()
            let readers = (0..<4).map { reader in
                Task { () -> [String] in
                    var failures: [String] = []
                    var reads = 0
                    while !done.value.withLock({ $0 }) || reads < 5 {
                        reads += 1
                        let response = try await site.page(reader % 2 == 0 ? "/" : "/app.js")
                        let letters = Set(response.text)
                        if response.status != .ok || letters.count != 1 || response.body.count != 64 * 1024 {
                            failures.append("\(response.status.code) \(letters.sorted()) \(response.body.count)")
                        }
                    }
                    return failures
                }
            }
            for source in sources {
                try site.deployments.deploy(directory: source, to: .development)
                try await Task.sleep(for: .milliseconds(20))
            }
            done.value.withLock { $0 = true }
            for reader in readers {
                #expect(try await reader.value == [])
            }
            #expect(Set(try await site.page("/").text) == ["g"])
        }
    }

    @Test("rollback serves the previous version; promote copies development's files to production; old versions are pruned")
    func rollbackAndPromote() async throws {
        try await HTML5Fixture.run(configure: { $0.html5.keepVersions = 3 }) { site in
            let deployments = HTML5Deployments(dataDirectory: site.dataDirectory, keepVersions: 3)
            #expect(throws: HTML5Error.noDeployedVersion(.development)) { try deployments.rollback(.development) }
            #expect(throws: HTML5Error.noDeployedVersion(.development)) { try deployments.promote() }
            #expect(try deployments.deploy(directory: try site.source(["index.html": "v1"]), to: .development) == 1)
            #expect(throws: HTML5Error.noPreviousVersion(.development)) { try deployments.rollback(.development) }
            #expect(try deployments.deploy(directory: try site.source(["index.html": "v2"]), to: .development) == 2)
            #expect(try await site.page("/").text == "v2")
            #expect(try deployments.rollback(.development) == 1)
            #expect(try await site.page("/").text == "v1")
            #expect(deployments.current(.development)?.number == 1)
            // Promote: development's current files (v1) become production's version 1.
            #expect(try deployments.promote() == 1)
            #expect(try await site.page("/", .production).text == "v1")
            #expect(try await site.page("/").text == "v1")
            // Deploys after a rollback take new numbers; at most 3 versions are kept.
            for text in ["v3", "v4", "v5"] {
                try deployments.deploy(directory: try site.source(["index.html": text]), to: .development)
            }
            #expect(deployments.versions(.development) == [3, 4, 5])
            #expect(try await site.page("/").text == "v5")
        }
    }

    @Test("a version's files are on the disk before `current` names it, and `current` is when deploy, rollback and promote return")
    func durableVersions() async throws {
        try await TestServer.withDataDirectory { directory in
            let html5 = directory + "/html5"
            // Where each environment's `current` pointed when something was synced.
            let recorder = SyncRecorder {
                ["development", "production"].map { kind in
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(html5)/\(kind)/current")) ?? "none"
                }.joined(separator: " ")
            }
            let deployments = HTML5Deployments(dataDirectory: directory, disk: recorder.disk)
            // Each item of `version` first synced while `current` named the one before, then the
            // versions' directory that names it, still before; then the environment's directory,
            // naming `version`.
            func expectSynced(_ version: String, before: String, after: String) throws {
                let items = SyncRecorder.tree(atPath: version)
                #expect(items.count >= 6, "\(items)")
                var latest = 0
                for item in items {
                    let first = try #require(recorder.firstSync(ofItemAtPath: item), "\(item) never synced")
                    #expect(recorder.synced[first].observed == before, "\(item)")
                    latest = max(latest, first)
                }
                let versions = (version as NSString).deletingLastPathComponent
                let versionsInode = try #require(SyncRecorder.inode(ofItemAtPath: versions))
                let named = try #require(
                    recorder.synced.indices.first { $0 > latest && recorder.synced[$0].inode == versionsInode }, "\(versions) not synced after")
                #expect(recorder.synced[named].observed == before, "\(recorder.synced)")
                let environment = try #require(SyncRecorder.inode(ofItemAtPath: (versions as NSString).deletingLastPathComponent))
                let switched = try #require(recorder.lastSync(ofItemAtPath: (versions as NSString).deletingLastPathComponent))
                #expect(switched > named && recorder.synced[switched] == SyncRecorder.Synced(inode: environment, isDirectory: true, observed: after))
            }
            let site = ["index.html": String(repeating: "v1 ", count: 500), "assets/app.css": "a{}", "assets/img/logo.svg": "<svg/>"]
            #expect(try deployments.deploy(directory: try HTML5Fixture.source(site, in: directory), to: .development) == 1)
            try expectSynced(html5 + "/development/versions/1", before: "none none", after: "versions/1 none")
            #expect(try deployments.deploy(directory: try HTML5Fixture.source(site, in: directory), to: .development) == 2)
            try expectSynced(html5 + "/development/versions/2", before: "versions/1 none", after: "versions/2 none")
            #expect(try deployments.rollback(.development) == 1)
            #expect(recorder.synced.last == SyncRecorder.Synced(
                inode: try #require(SyncRecorder.inode(ofItemAtPath: html5 + "/development")), isDirectory: true, observed: "versions/1 none"))
            #expect(try deployments.promote() == 1)
            try expectSynced(html5 + "/production/versions/1", before: "versions/1 none", after: "versions/1 versions/1")
        }
    }

    @Test("a pruned version leaves the versions' names, on the disk, before it is removed")
    func durablePrune() async throws {
        try await TestServer.withDataDirectory { directory in
            let versions = directory + "/html5/development/versions"
            // The versions' directory as each sync saw it, a pruned one as `.pruned`.
            let recorder = SyncRecorder {
                ((try? FileManager.default.contentsOfDirectory(atPath: versions)) ?? [])
                    .map { $0.hasPrefix(".pruned-") ? ".pruned" : $0 }.sorted().joined(separator: ",")
            }
            let deployments = HTML5Deployments(dataDirectory: directory, keepVersions: 2, disk: recorder.disk)
            for text in ["v1", "v2", "v3"] {
                try deployments.deploy(directory: try HTML5Fixture.source(["index.html": text], in: directory), to: .development)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: versions).sorted() == ["2", "3"])
            let inode = try #require(SyncRecorder.inode(ofItemAtPath: versions))
            #expect(recorder.synced.contains(SyncRecorder.Synced(inode: inode, isDirectory: true, observed: ".pruned,2,3")), "\(recorder.synced)")
        }
    }

    @Test("while another holds an environment's lock, its deploy, rollback and promote are refused with nothing changed; other environments go on")
    func busyEnvironment() async throws {
        try await TestServer.withDataDirectory { directory in
            let deployments = HTML5Deployments(dataDirectory: directory)
            try deployments.deploy(directory: try HTML5Fixture.source(["index.html": "v1"], in: directory), to: .development)
            try deployments.deploy(directory: try HTML5Fixture.source(["index.html": "v2"], in: directory), to: .development)
            let source = try HTML5Fixture.source(["index.html": "v3"], in: directory)
            // Another process's deploy of development, as `stackmob-server html5` would hold it.
            try await DeployLockHolder.holding(directory + "/html5/development") {
                #expect(throws: HTML5Error.busy(.development)) { try deployments.deploy(directory: source, to: .development) }
                #expect(throws: HTML5Error.busy(.development)) {
                    try deployments.deploy(archive: TarArchive([.file("index.html", "v3")]).bytes, to: .development, maxUnpackedBytes: 1 << 20)
                }
                #expect(throws: HTML5Error.busy(.development)) { try deployments.rollback(.development) }
                // Promote reads development's current version: it waits for development too.
                #expect(throws: HTML5Error.busy(.development)) { try deployments.promote() }
                #expect(deployments.current(.development)?.number == 2)
                #expect(deployments.versions(.development) == [1, 2])
                let production = try deployments.deploy(directory: source, to: .production)
                #expect(production == 1)
            }
            #expect(try deployments.deploy(directory: source, to: .development) == 3)
            #expect(try deployments.promote() == 2)
            // Production's deploy running: promote is refused, and lets development's lock go.
            try await DeployLockHolder.holding(directory + "/html5/production") {
                #expect(throws: HTML5Error.busy(.production)) { try deployments.promote() }
                let development = try deployments.deploy(directory: source, to: .development)
                #expect(development == 4)
            }
            #expect(deployments.versions(.production) == [1, 2])
        }
    }

    @Test("concurrent deploys of one environment take turns: never two versions staged at once, each let in gets a new number, the newest is served")
    func concurrentDeploys() async throws {
        try await TestServer.withDataDirectory { directory in
            let versions = directory + "/html5/development/versions"
            // How many versions were being staged at each sync; the pause widens the moment in
            // which another deploy, were it let in, would stage its own.
            let recorder = SyncRecorder {
                let staging = ((try? FileManager.default.contentsOfDirectory(atPath: versions)) ?? []).filter { $0.hasPrefix(".staging-") }
                usleep(500)
                return String(staging.count)
            }
            let deployments = HTML5Deployments(dataDirectory: directory, disk: recorder.disk)
            let sources = try (0..<4).map { writer in
                try HTML5Fixture.source(["index.html": String(repeating: "\(writer)", count: 100_000), "b.js": "b", "c.css": "c"], in: directory)
            }
            let published = Mutex<[Int]>([])
            let refused = Atomic<Int>(0)
            // Threads of their own: a deploy blocks on the disk, as it does on NIO's thread pool.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let group = DispatchGroup()
                for source in sources {
                    DispatchQueue.global().async(group: group) {
                        for _ in 0..<6 {
                            do {
                                let number = try deployments.deploy(directory: source, to: .development)
                                published.withLock { $0.append(number) }
                            } catch HTML5Error.busy {
                                refused.add(1, ordering: .relaxed)
                            } catch {
                                Issue.record("\(error)")
                            }
                        }
                    }
                }
                group.notify(queue: .global()) { done.resume() }
            }
            let staged = recorder.synced.map(\.observed)
            #expect(staged.contains("1") && !staged.contains { (Int($0) ?? 0) > 1 }, "\(staged)")
            let numbers = published.withLock { $0 }
            #expect(numbers.count + refused.load(ordering: .relaxed) == 24)
            #expect(Set(numbers).count == numbers.count, "a number published twice: \(numbers.sorted())")
            #expect(deployments.current(.development)?.number == numbers.max())
            #expect(deployments.versions(.development).last == numbers.max())
        }
    }

    @Test("what a deploy cut short by a crash left (staging, an unpacked upload, a link, a pruned version) is removed by the next one")
    func crashLeftovers() async throws {
        try await TestServer.withDataDirectory { directory in
            let deployments = HTML5Deployments(dataDirectory: directory)
            try deployments.deploy(directory: try HTML5Fixture.source(["index.html": "v1"], in: directory), to: .development)
            let environment = directory + "/html5/development"
            let leftovers = [
                environment + "/.upload-1/site/index.html", environment + "/versions/.staging-2/site/index.html",
                environment + "/versions/.pruned-3/site/index.html",
            ]
            for file in leftovers {
                try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data("left".utf8).write(to: URL(fileURLWithPath: file))
            }
            try FileManager.default.createSymbolicLink(atPath: environment + "/.current-4", withDestinationPath: "versions/1")
            #expect(try deployments.deploy(directory: try HTML5Fixture.source(["index.html": "v2"], in: directory), to: .development) == 2)
            #expect(try FileManager.default.contentsOfDirectory(atPath: environment).sorted() == [".lock", "current", "versions"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: environment + "/versions").sorted() == ["1", "2"])
        }
    }

    @Test("bad input at deploy time: a missing directory, a file, a link outside the directory, a dangling link")
    func badInput() async throws {
        try await TestServer.withDataDirectory { directory in
            let deployments = HTML5Deployments(dataDirectory: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            #expect(throws: HTML5Error.sourceNotFound(directory + "/nope")) { try deployments.deploy(directory: directory + "/nope", to: .development) }
            let good = try HTML5Fixture.source(["index.html": "ok", "assets/a.css": "a{}"], in: directory)
            #expect(throws: HTML5Error.sourceNotADirectory(good + "/index.html")) { try deployments.deploy(directory: good + "/index.html", to: .development) }
            try deployments.deploy(directory: good, to: .development)
            // A link inside the directory is followed; one leading out of it is refused.
            let linked = try HTML5Fixture.source(["index.html": "ok"], in: directory)
            try FileManager.default.createSymbolicLink(atPath: linked + "/home.html", withDestinationPath: "index.html")
            #expect(try deployments.deploy(directory: linked, to: .development) == 2)
            try FileManager.default.createSymbolicLink(atPath: linked + "/passwd", withDestinationPath: "/etc/passwd")
            #expect(throws: HTML5Error.pathOutsideSource("passwd")) { try deployments.deploy(directory: linked, to: .development) }
            let dangling = try HTML5Fixture.source(["index.html": "ok"], in: directory)
            try FileManager.default.createSymbolicLink(atPath: dangling + "/gone.js", withDestinationPath: "missing.js")
            #expect(throws: HTML5Error.unreadableFile("gone.js")) { try deployments.deploy(directory: dangling, to: .development) }
            // A failed deploy changes nothing and leaves no staging directory behind.
            #expect(deployments.current(.development)?.number == 2)
            #expect(deployments.versions(.development) == [1, 2])
            let versions = try FileManager.default.contentsOfDirectory(atPath: directory + "/html5/development/versions")
            #expect(versions.sorted() == ["1", "2"])
        }
    }
}

/// Tells the reader tasks that the deploys are over.
final class DoneFlag: Sendable {
    let value = Mutex(false)
}
