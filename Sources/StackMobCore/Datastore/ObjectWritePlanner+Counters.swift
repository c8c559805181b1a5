/// Atomic counters (PROTOCOL §6.7): `field[inc]: n` adds n to the stored value, a missing or null
/// value counting as 0. Resolved against the object read inside the same write transaction, so
/// concurrent increments never lose an update.
extension ObjectWritePlanner {
    static let incrementSuffix = "[inc]"

    func resolvingCounters(in body: JSONObject, existing: JSONObject?, mode: Mode) throws(DatastoreError) -> JSONObject {
        guard body.keys.contains(where: { $0.hasSuffix(Self.incrementSuffix) }) else { return body }
        var resolved = body.filter { !$0.key.hasSuffix(Self.incrementSuffix) }
        for (key, delta) in body.sorted(by: { $0.key < $1.key }) where key.hasSuffix(Self.incrementSuffix) {
            let field = String(key.dropLast(Self.incrementSuffix.count))
            guard Identifier.isValidFieldName(field) else { throw .invalidFieldName(key) }
            // An absolute value in the same body (Java `forceTo`) is the base; otherwise the stored one.
            let base = body[field] ?? existing?[field] ?? .null
            resolved[field] = try Self.sum(base, delta, field: field, mode: mode)
        }
        return resolved
    }

    private static func sum(_ base: JSONValue, _ delta: JSONValue, field: String, mode: Mode) throws(DatastoreError) -> JSONValue {
        switch (base, delta) {
        case (.null, .integer), (.null, .float): return delta
        case (.integer(let a), .integer(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            guard !overflow else { throw mode.typeError(field) }
            return .integer(sum)
        case (.integer(let a), .float(let b)): return try finite(Double(a) + b, field: field, mode: mode)
        case (.float(let a), .integer(let b)): return try finite(a + Double(b), field: field, mode: mode)
        case (.float(let a), .float(let b)): return try finite(a + b, field: field, mode: mode)
        default: throw mode.typeError(field)
        }
    }

    /// `1e308 + 1e308` is infinite, which JSON cannot carry: refused like an integer overflow.
    private static func finite(_ sum: Double, field: String, mode: Mode) throws(DatastoreError) -> JSONValue {
        guard sum.isFinite else { throw mode.typeError(field) }
        return .float(sum)
    }
}
