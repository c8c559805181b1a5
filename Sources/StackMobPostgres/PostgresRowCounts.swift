/// A schema table's number of rows, kept so that a page's total without a filter (the open list,
/// a count of a whole schema) costs a few rows' sum instead of a count of the table, which
/// PostgreSQL counts row by row (docs/benchmarks.md, "PostgreSQL's totals").
///
/// Two statement triggers on the table append what each INSERT and DELETE changed to
/// `_sm_row_count_changes`, in the writing transaction, so a total (`_sm_row_counts` plus the
/// changes) is exact in every snapshot, whoever wrote the rows. `fold` moves the changes into
/// `_sm_row_counts` every few seconds, so that a total sums a few seconds' writes at most
/// (migrations/postgresql/v003_row_counts.sql says why changes are appended).
///
/// A total trusts the counts only while both triggers are on the table: a table created or
/// rebuilt by an earlier version, or whose triggers an operator disabled, is counted as before.
enum PostgresRowCounts {
    static let triggers = ["_sm_count_inserted", "_sm_count_deleted"]
    /// How often `folding` folds: a total sums at most about this long's writes.
    static let foldInterval = Duration.seconds(2)

    /// Installs the triggers on `table` unless it has them, with the count of the rows it holds:
    /// once per table, under a lock that makes writers wait (readers go on) while it counts.
    static func install(on table: String, in transaction: PostgresTransaction) async throws {
        var installed = PostgresStatement("SELECT count(*) FROM pg_trigger WHERE tgrelid = ")
        installed.append("\(installed.bind(quote(table)))::regclass AND tgname IN (\(triggers.map { "'\($0)'" }.joined(separator: ", ")))")
        guard try await transaction.run(installed).first?.decode(Int64.self) != 2 else { return }
        try await transaction.run(PostgresStatement("LOCK TABLE \(quote(table)) IN SHARE ROW EXCLUSIVE MODE"))
        for trigger in triggers {
            try await transaction.run(PostgresStatement("DROP TRIGGER IF EXISTS \(trigger) ON \(quote(table))"))
        }
        try await forget(table, in: transaction)
        var count = PostgresStatement("INSERT INTO _sm_row_counts (table_name, row_count) SELECT ")
        count.append("\(count.bind(table)), count(*) FROM \(quote(table))")
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

    /// Removes the counts of `table`: before it is dropped, or counted again.
    static func forget(_ table: String, in transaction: PostgresTransaction) async throws {
        for counts in ["_sm_row_counts", "_sm_row_count_changes"] {
            var forget = PostgresStatement("DELETE FROM \(counts) WHERE table_name = ")
            forget.append(forget.bind(table))
            try await transaction.run(forget)
        }
    }

    /// An expression for the number of rows in `table`: `_sm_row_total` (its count and changes
    /// while both triggers are on it and enabled and its count is there, else a count of the
    /// table), in a subquery so that PostgreSQL calls it once, not once per row of the page.
    static func total(of table: String, into statement: inout PostgresStatement) -> String {
        "(SELECT _sm_row_total(\(statement.bind(table))))"
    }

    /// Moves the committed changes into the counts, in one transaction (a total sees them in one
    /// place or the other, never both or neither). One instance at a time: the others skip
    /// their round while one folds.
    static func fold(_ database: PostgresPool) async throws {
        try await database.writeTransaction { connection in
            let lock = PostgresStatement("SELECT pg_try_advisory_xact_lock(hashtext('stackmob row counts ' || current_schema()))")
            guard try await database.execute(lock, on: connection).first?.decode(Bool.self) == true else { return }
            try await database.execute(
                PostgresStatement(
                    """
                    WITH moved AS (DELETE FROM _sm_row_count_changes RETURNING table_name, change),
                         sums AS (SELECT table_name, sum(change)::bigint AS change FROM moved GROUP BY table_name)
                    UPDATE _sm_row_counts AS counts SET row_count = counts.row_count + sums.change
                    FROM sums WHERE counts.table_name = sums.table_name
                    """), on: connection)
        }
    }

    /// `fold` every `foldInterval` until cancelled (`PostgresStorageEngine.close`). A round that
    /// fails (the database briefly away) is logged, and the next one tries again.
    static func folding(_ database: PostgresPool) async {
        while (try? await Task.sleep(for: foldInterval)) != nil {
            do {
                try await fold(database)
            } catch {
                database.logger.notice("Folding row counts failed; the next round tries again", metadata: ["error.type": "\(error)"])
            }
        }
    }
}
