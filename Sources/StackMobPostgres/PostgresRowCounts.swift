/// A schema table's number of rows, kept in `_sm_row_counts` by two statement triggers
/// (migrations/postgresql/v003_row_counts.sql), so that a page's total without a filter (the open
/// list, a count of a whole schema) costs a few rows' sum instead of a count of the table:
/// PostgreSQL counts rows one by one, 18 ms for 100,000 (docs/benchmarks.md, "PostgreSQL's
/// totals"). The counts change in the transactions that insert and delete, so a total stays
/// exact in every snapshot.
///
/// A total trusts the counts only while both triggers are on the table: a table created or
/// rebuilt by an earlier version, or whose triggers an operator disabled, is counted as before.
enum PostgresRowCounts {
    static let triggers = ["_sm_count_inserted", "_sm_count_deleted"]

    /// Installs the triggers on `table` unless it has them, with the count of the rows it holds:
    /// once per table, under a lock that makes writers wait (readers go on) while it counts.
    static func install(on table: String, in transaction: PostgresTransaction) async throws {
        var installed = PostgresStatement("SELECT count(*) FROM pg_trigger WHERE tgrelid = ")
        installed.append("\(installed.bind(quote(table)))::regclass AND tgname IN ('_sm_count_inserted', '_sm_count_deleted')")
        guard try await transaction.run(installed).first?.decode(Int64.self) != 2 else { return }
        try await transaction.run(PostgresStatement("LOCK TABLE \(quote(table)) IN SHARE ROW EXCLUSIVE MODE"))
        for trigger in triggers {
            try await transaction.run(PostgresStatement("DROP TRIGGER IF EXISTS \(trigger) ON \(quote(table))"))
        }
        var forget = PostgresStatement("DELETE FROM _sm_row_counts WHERE table_name = ")
        forget.append(forget.bind(table))
        try await transaction.run(forget)
        var count = PostgresStatement("INSERT INTO _sm_row_counts (table_name, slot, row_count) SELECT ")
        count.append("\(count.bind(table)), 0, count(*) FROM \(quote(table))")
        try await transaction.run(count)
        try await transaction.run(
            PostgresStatement(
                "CREATE TRIGGER _sm_count_inserted AFTER INSERT ON \(quote(table)) "
                    + "REFERENCING NEW TABLE AS _sm_new_rows FOR EACH STATEMENT EXECUTE FUNCTION _sm_count_inserted()"))
        try await transaction.run(
            PostgresStatement(
                "CREATE TRIGGER _sm_count_deleted AFTER DELETE ON \(quote(table)) "
                    + "REFERENCING OLD TABLE AS _sm_old_rows FOR EACH STATEMENT EXECUTE FUNCTION _sm_count_deleted()"))
    }

    /// The counts of a table about to be dropped.
    static func forget(_ table: String, in transaction: PostgresTransaction) async throws {
        var forget = PostgresStatement("DELETE FROM _sm_row_counts WHERE table_name = ")
        forget.append(forget.bind(table))
        try await transaction.run(forget)
    }

    /// An expression for the number of rows in `table`: the sum of its counts while both
    /// triggers are on it and enabled, else a count of the table. PostgreSQL runs only the
    /// branch it takes (each subquery is an InitPlan, run when first needed).
    static func total(of table: String, into statement: inout PostgresStatement) -> String {
        let relation = statement.bind(quote(table))
        let name = statement.bind(table)
        return """
            (CASE WHEN (SELECT count(*) FROM pg_trigger WHERE tgrelid = \(relation)::regclass \
            AND tgname IN ('_sm_count_inserted', '_sm_count_deleted') AND tgenabled <> 'D') = 2 \
            THEN (SELECT COALESCE(sum(row_count), 0)::bigint FROM _sm_row_counts WHERE table_name = \(name)) \
            ELSE (SELECT count(*) FROM \(quote(table))) END)
            """
    }
}
