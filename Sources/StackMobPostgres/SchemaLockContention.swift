/// A write had to change a table's definition while another transaction held a lock on the table
/// or the schema lock: it has been rolled back, and `PostgresStorageEngine.write` runs it again
/// with those locks taken first.
struct SchemaLockContention: Error {
    let table: String
}
