import PostgresNIO
import StackMobCore

extension PostgresStorageEngine {
    /// Every table of the environment's schema (the connections' `search_path`) with its indexes
    /// and TOAST (`pg_total_relation_size`): what this environment keeps, whatever else the
    /// database holds. Asked of PostgreSQL's catalogue, asynchronously.
    public func databaseSize() async throws -> Int64? {
        let rows = try await database.execute(
            PostgresStatement(
                """
                SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm', 'p')
                """))
        return try rows.first?.decode(Int64.self)
    }
}
