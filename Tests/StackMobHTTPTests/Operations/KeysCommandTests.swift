import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// A private key passes every ACL, and logs are kept and shipped: the server prints development's
/// once, at the start that generates it, and production's never; `keys` shows them on request
/// (docs/operations.md, "Keys").
@Suite("Secrets in logs: API keys")
struct KeysCommandTests {
    static let environment = ["STACKMOB_PUSH__PORT": "0", "STACKMOB_PASSWORDS__PBKDF2_ROUNDS": "1000"]

    /// One start of the binary on `data` with no keys configured: its log.
    static func start(_ data: String, in directory: String) async throws -> String {
        let server = try ServerProcess(arguments: ["serve", "--port", "0", "--data-dir", data], directory: directory, environment: environment)
        #expect(try await server.listeningPort() != nil, "server did not start: \(server.log)")
        #expect(await server.terminate() == 0)
        return server.log
    }

    /// `keys --data-dir data`, with no keys configured: its exit status and output.
    static func keys(_ data: String, in directory: String) async throws -> (Int32, String) {
        let process = try ServerProcess(arguments: ["keys", "--data-dir", data], directory: directory, environment: environment)
        return (await process.waitForExit(), process.log)
    }

    @Test("the first start's log holds development's private key, the second's does not; production's is never logged; `keys` prints all four")
    func printedOnce() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let data = "\(directory)/data"
            let (empty, emptyOutput) = try await Self.keys(data, in: directory)
            #expect(empty == 0 && emptyOutput.contains("development: no keys yet"), "\(emptyOutput)")

            let first = try await Self.start(data, in: directory)
            let stored = try #require(try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: "\(data)/keys.json")))).objectValue)
            func key(_ environment: String, _ name: String) throws -> String {
                try #require(stored[environment]?.objectValue?[name]?.stringValue)
            }
            let (developmentPublic, developmentPrivate) = (try key("development", "public_key"), try key("development", "private_key"))
            let (productionPublic, productionPrivate) = (try key("production", "public_key"), try key("production", "private_key"))
            #expect(first.contains(developmentPrivate), "the generating start shows development's private key: \(first)")
            #expect(first.contains(developmentPublic) && first.contains(productionPublic))
            #expect(!first.contains(productionPrivate), "production's private key is never logged")
            #expect(first.contains("stackmob-server keys"), "the log says how to see the keys")

            let second = try await Self.start(data, in: directory)
            #expect(second.contains(developmentPublic) && second.contains(productionPublic), "public keys at every start")
            #expect(!second.contains(developmentPrivate), "a private key is printed once, not at every start: \(second)")
            #expect(!second.contains(productionPrivate))

            let (status, output) = try await Self.keys(data, in: directory)
            #expect(status == 0, "\(output)")
            #expect(output.contains("development public_key \(developmentPublic)"), "\(output)")
            #expect(output.contains("development private_key \(developmentPrivate)"))
            #expect(output.contains("production public_key \(productionPublic)"))
            #expect(output.contains("production private_key \(productionPrivate)"))
        }
    }
}
