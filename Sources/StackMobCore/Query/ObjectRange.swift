import Foundation

/// `Range: objects=<start>-<end>` or `objects=<start>-` (PROTOCOL §5.6, D29): zero-based,
/// inclusive, honoured literally.
public struct ObjectRange: Sendable, Equatable {
    public var start: Int
    /// Inclusive; nil for an open-ended range.
    public var end: Int?

    public init(start: Int, end: Int?) {
        self.start = start
        self.end = end
    }

    public static func parse(_ header: String) throws(QueryError) -> ObjectRange {
        let text = header.trimmingSpaces()
        guard text.hasPrefix("objects=") else { throw .invalidRange(header) }
        let bounds = text.dropFirst("objects=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Int(bounds[0]), start >= 0 else { throw .invalidRange(header) }
        if bounds[1].isEmpty { return ObjectRange(start: start, end: nil) }
        guard let end = Int(bounds[1]), end >= start else { throw .invalidRange(header) }
        return ObjectRange(start: start, end: end)
    }

    /// How many objects the range holds. Both bounds are the client's, so `objects=0-<Int.max>`
    /// saturates at `Int.max` instead of trapping.
    public var limit: Int? {
        end.map { end in
            let (count, overflow) = (end - start).addingReportingOverflow(1)
            return overflow ? .max : count
        }
    }

    /// The index of the last of `count` objects returned from `start` (for `Content-Range`), or
    /// nil if it is not representable.
    public func lastIndex(returning count: Int) -> Int? {
        let (last, overflow) = start.addingReportingOverflow(count - 1)
        return overflow ? nil : last
    }
}
