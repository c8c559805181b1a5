/// How much one query may ask for (docs/operations.md, "Limits"), checked before any SQL is built.
///
/// Each filter term is a node of the SQL expression and each sort key a term of `ORDER BY`;
/// SQLite refuses an expression tree deeper than 1,000 nodes, and long before that a query stops
/// being one an app would send. The bounds are far above what the SDKs' query builders produce.
public enum QueryLimits {
    /// Filter parameters in one query string, `[orN]` terms included.
    public static let maxConditions = 100
    /// Distinct `[orN]` groups.
    public static let maxOrGroups = 20
    /// Values in one `[in]` or `[nin]` list.
    public static let maxListValues = 1_000
    /// Keys in `X-StackMob-OrderBy`.
    public static let maxOrderKeys = 10
    /// Fields in `X-StackMob-Select`.
    public static let maxSelectedFields = 500
}
