/// What a list read asks of storage: a typed filter, an order, a window.
public struct ObjectQuery: Sendable, Equatable {
    public var filter: TypedFilter?
    /// Sort keys in priority order; empty means the default order (PROTOCOL D18).
    public var order: [SortKey]
    public var offset: Int
    public var limit: Int?
    /// Whether to count every matching object (for `Content-Range`), in the same statement.
    public var countsTotal: Bool
    /// When set, no row is read after the one whose stored values take the rows read past this
    /// many bytes (the first row is always read), and the page says whether rows were left
    /// (`ObjectPage.endedAtByteLimit`). A window's row count does not bound its memory: a stored
    /// object may be as large as a request body.
    public var byteLimit: Int?

    public init(
        filter: TypedFilter? = nil, order: [SortKey] = [], offset: Int = 0, limit: Int? = nil, countsTotal: Bool = false,
        byteLimit: Int? = nil
    ) {
        self.filter = filter
        self.order = order
        self.offset = offset
        self.limit = limit
        self.countsTotal = countsTotal
        self.byteLimit = byteLimit
    }
}

/// One window of matching objects, with the number of all matching objects when it was asked for
/// and the window was not empty.
public struct ObjectPage: Sendable, Equatable {
    public var objects: [JSONObject]
    public var total: Int?
    /// Whether the query's `byteLimit` ended the read: rows of the window after `objects` may
    /// remain unread.
    public var endedAtByteLimit: Bool
    /// The bytes of stored values the read counted against its byte limit (0 without one), by
    /// `ObjectQuery.byteLimit`'s measure.
    public var storedBytes: Int

    public init(objects: [JSONObject], total: Int?, endedAtByteLimit: Bool = false, storedBytes: Int = 0) {
        self.objects = objects
        self.total = total
        self.endedAtByteLimit = endedAtByteLimit
        self.storedBytes = storedBytes
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
