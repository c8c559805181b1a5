import StackMobCore

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
/// includes the row that passes it. The sum runs over the wrapped statement's rows in the order
/// it sends them: a window without an order of its own takes its input's, and PostgreSQL never
/// merges a subquery holding a window function into the query around it, which only filters.
///
/// `octet_length` of a text value reads the length a stored (even compressed, out-of-line) value
/// records, without reading the value. Only text columns are counted, and exactly as the client
/// counts their bytes on the wire; the client counts numbers too, so its sum is never the
/// smaller: the rows it keeps, and the one that tells it the limit was passed, are always among
/// those sent. The columns are the schema definition's, as in every statement naming a field: a
/// field another instance has just dropped fails the statement until the drop's notification
/// reaches this one (docs/operations.md, "Schema changes between instances").
enum RowsWithinBytes {
    /// The column the wrapper adds: the bytes of the rows before this one, NULL for the first.
    /// `_sm_`, which no field name can begin with (`Identifier`).
    static let bytesBefore = "_sm_bytes_before"

    /// `inner` (a `SELECT` of `schema`'s rows, with the columns it selects) with its rows cut
    /// after the one that passes `byteLimit`. Made for every limited read: built in one string.
    static func statement(_ inner: PostgresStatement, byteLimit: Int, schema: SchemaDefinition) -> PostgresStatement {
        var statement = inner
        var sql = "SELECT * FROM (SELECT _sm_rows.*, sum("
        sql.reserveCapacity(inner.sql.utf8.count + 240 + 48 * schema.fields.count)
        // The schema's text columns: its primary key and text fields. The others, left out, only
        // let more rows through.
        appendLength(of: schema.primaryKey, to: &sql)
        for (field, type) in schema.fields where PostgresValueMapping.isText(type) && field != schema.primaryKey {
            sql += " + "
            appendLength(of: field, to: &sql)
        }
        sql += ") OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS \"\(bytesBefore)\" FROM ("
        sql += inner.sql
        sql += ") AS _sm_rows) AS _sm_sized"
        statement.sql = sql
        statement.append(" WHERE coalesce(\"\(bytesBefore)\", 0) <= \(statement.bind(Int64(byteLimit)))")
        return statement
    }

    private static func appendLength(of column: String, to sql: inout String) {
        sql += "coalesce(octet_length(_sm_rows.\""
        sql += column
        sql += "\"), 0)"
    }
}
