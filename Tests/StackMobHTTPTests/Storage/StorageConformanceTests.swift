import StackMobCore
import StackMobTestSupport
import Testing

/// `StorageConformance`'s checks on the engine the test servers use: SQLite here, PostgreSQL in
/// the `postgresql` tier (docs/testing.md).
@Suite("Storage engines conform to the storage boundary")
struct StorageConformanceTests {
    @Test(arguments: StorageConformance.checks.map(\.name))
    func conformance(_ name: String) async throws {
        let check = try #require(StorageConformance.check(named: name))
        try await TestServer.withDataDirectory { directory in
            let provider = try TestServer.storage(TestServer.configuration(dataDirectory: directory))
            try await StorageConformance.run(check, provider: provider)
        }
    }
}
