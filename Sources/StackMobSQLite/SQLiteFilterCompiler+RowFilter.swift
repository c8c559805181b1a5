import StackMobCore

/// Schema-permission row rules (PROTOCOL §12) as SQL. Columns are qualified with their table, so
/// that a rule on the owner's user object (a subquery on the user table) can never pick up a
/// column of the outer table by mistake; every value is bound.
extension SQLiteFilterCompiler {
    mutating func compile(_ rows: RowFilter, table: String) -> String {
        let prefix = "\"\(table)\"."
        switch rows {
        case .nothing:
            return "0"
        case .ownerIs(let owner):
            // Served by the sm_owner index of every schema table.
            return "\(prefix)\"\(SchemaDefinition.owner)\" = \(bind(.string(owner)))"
        case .primaryKeyIs(let field, let value):
            return "\(prefix)\"\(field)\" = \(bind(.string(value)))"
        case .relationContains(let field, let toMany, let id):
            let column = "\(prefix)\"\(field)\""
            guard toMany else { return "\(column) = \(bind(.string(id)))" }
            // One-to-many values are stored as JSON arrays of ids.
            return "EXISTS (SELECT 1 FROM json_each(\(column)) WHERE json_each.value = \(bind(.string(id))))"
        case .ownerAmong(let userSchema, let primaryKey, let matching):
            let reference = bind(.string("\(userSchema)/"))
            let inner = compile(matching, table: userSchema)
            return "\(prefix)\"\(SchemaDefinition.owner)\" IN (SELECT \(reference) || \"\(userSchema)\".\"\(primaryKey)\" FROM \"\(userSchema)\" WHERE \(inner))"
        case .any(let filters):
            return filters.isEmpty ? "0" : "(" + filters.map { compile($0, table: table) }.joined(separator: " OR ") + ")"
        }
    }
}
