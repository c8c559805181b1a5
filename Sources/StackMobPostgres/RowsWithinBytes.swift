import StackMobCore
import Synchronization

/// A statement whose rows PostgreSQL stops sending once their values pass a byte limit.
///
/// A read with a byte limit (a page's batch, an expansion's related objects) keeps its rows up to
/// the one that passes the limit (`PostgresPool.execute(_:on:byteLimit:)`). Without more, the
/// rows after it are still sent: postgres-nio reads them from the connection and drops them, on
/// the event loop the request runs on. A batch of a hundred objects of a few megabytes each, or a
/// relation naming every large object of a schema, then moves hundreds of megabytes from the
/// database for an answer of a few, or for a refusal (docs/architecture.md, "Memory per
/// request"). SQLite simply stops stepping the statement.
///
/// So the statement is wrapped: each row carries the bytes of the text values of the rows before
/// it (`bytesBefore`), and only rows whose earlier rows are within the limit are sent, which
/// includes the row that passes it. PostgreSQL still reads every row the statement matches (a
/// running sum cannot end its scan); it stops sending them. The sum runs over the wrapped
/// statement's rows in the order it sends them: a window without an order of its own takes its
/// input's, and PostgreSQL never merges a subquery holding a window function into the query
/// around it, which only filters.
///
/// `octet_length` of a text value reads the length a stored (even compressed, out-of-line) value
/// records, without reading the value. Only text columns are counted, and exactly as the client
/// counts their bytes on the wire; the client counts numbers too, so its sum is never the
/// smaller: the rows it keeps, and the one that tells it the limit was passed, are always among
/// those sent.
///
/// Only the statements of a schema whose limited reads have passed their limit are wrapped
/// (`passed(_:)`), from the next read on: most schemas' rows never come near a limit, and the
/// wrapper costs PostgreSQL a term per text column on every row (a schema of hundreds of fields
/// took several times as long to plan and run), and names every column, so that a field another
/// instance has just dropped fails the statement until the drop's notification reaches this one
/// (docs/operations.md, "Schema changes between instances").
final class RowsWithinBytes: Sendable {
    /// The column the wrapper adds: the bytes of the rows before this one, NULL for the first.
    /// `_sm_`, which no field name can begin with (`Identifier`).
    static let bytesBefore = "_sm_bytes_before"

    /// The schemas whose limited reads are wrapped.
    private let schemas = Mutex<Set<String>>([])

    /// `inner` (a `SELECT` of `schema`'s rows, with the columns it selects), with its rows cut
    /// after the one that passes `byteLimit` when the schema's reads have passed a limit before.
    func statement(_ inner: PostgresStatement, byteLimit: Int, schema: SchemaDefinition) -> PostgresStatement {
        guard schemas.withLock({ $0.contains(schema.name) }) else { return inner }
        return Self.wrapped(inner, byteLimit: byteLimit, schema: schema)
    }

    /// A read of `schema` passed its byte limit: its later reads are wrapped.
    func passed(_ schema: SchemaDefinition) {
        schemas.withLock { _ = $0.insert(schema.name) }
    }

    private static func wrapped(_ inner: PostgresStatement, byteLimit: Int, schema: SchemaDefinition) -> PostgresStatement {
        var statement = inner
        var sql = "SELECT * FROM (SELECT _sm_rows.*, sum("
        sql.reserveCapacity(inner.sql.utf8.count + 240 + 48 * schema.fields.count)
        // The schema's text columns: its primary key and text fields, in the order of their names
        // (the same text for the same schema). The others, left out, only let more rows through.
        appendLength(of: schema.primaryKey, to: &sql)
        sql += "::bigint"
        for (field, type) in schema.fields.sorted(by: { $0.key < $1.key }) where PostgresValueMapping.isText(type) && field != schema.primaryKey {
            sql += " + "
            appendLength(of: field, to: &sql)
        }
        sql += ") OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS \(quote(bytesBefore)) FROM ("
        sql += inner.sql
        sql += ") AS _sm_rows) AS _sm_sized"
        statement.sql = sql
        statement.append(" WHERE coalesce(\(quote(bytesBefore)), 0) <= \(statement.bind(Int64(byteLimit)))")
        return statement
    }

    private static func appendLength(of column: String, to sql: inout String) {
        sql += "coalesce(octet_length(_sm_rows."
        sql += quote(column)
        sql += "), 0)"
    }
}
