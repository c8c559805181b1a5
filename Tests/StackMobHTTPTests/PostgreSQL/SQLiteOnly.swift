import StackMobTestSupport
import Testing

extension Trait where Self == ConditionTrait {
    /// For the few tests that open the SQLite files themselves (what is on disk, SQLite's own
    /// engine): skipped in the PostgreSQL run of the suite, whose data is not in those files.
    static var sqliteFiles: Self {
        .enabled(if: TestServer.postgreSQLURL == nil, "reads the SQLite database files")
    }
}
