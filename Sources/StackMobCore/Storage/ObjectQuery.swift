/// What a list read asks of storage: a typed filter, an order, a window.
public struct ObjectQuery: Sendable, Equatable {
    public var filter: TypedFilter?
    /// Sort keys in priority order; empty means the default order (PROTOCOL D18).
    public var order: [SortKey]
    public var offset: Int
    public var limit: Int?
    /// Whether to count every matching object (for `Content-Range`), in the same statement.
    public var countsTotal: Bool

    public init(filter: TypedFilter? = nil, order: [SortKey] = [], offset: Int = 0, limit: Int? = nil, countsTotal: Bool = false) {
        self.filter = filter
        self.order = order
        self.offset = offset
        self.limit = limit
        self.countsTotal = countsTotal
    }
}

/// One window of matching objects, with the number of all matching objects when it was asked for
/// and the window was not empty.
public struct ObjectPage: Sendable, Equatable {
    public var objects: [JSONObject]
    public var total: Int?

    public init(objects: [JSONObject], total: Int?) {
        self.objects = objects
        self.total = total
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
