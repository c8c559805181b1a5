/// What a list read asks of storage. The query language (filters, ranges) grows here.
public struct ObjectQuery: Sendable, Equatable {
    /// Sort keys in priority order; empty means the default order (PROTOCOL D18).
    public var order: [SortKey]
    public var offset: Int
    public var limit: Int?

    public init(order: [SortKey] = [], offset: Int = 0, limit: Int? = nil) {
        self.order = order
        self.offset = offset
        self.limit = limit
    }
}

public struct SortKey: Sendable, Equatable {
    public var field: String
    public var ascending: Bool

    public init(field: String, ascending: Bool) {
        self.field = field
        self.ascending = ascending
    }
}
