/// The rules for `createddate` and `lastmoddate` (PROTOCOL §4.1, D25).
enum ObjectTimestamps {
    /// What a client may send for either field (offline sync): milliseconds from the epoch up to
    /// the end of the year 9999. Outside it a value is no date any client could mean, and near
    /// `Int64.max` the next `lastmoddate` would not be representable.
    static let acceptedRange: ClosedRange<Int64> = 0...253_402_300_799_999

    /// The `lastmoddate` of a write: strictly greater than the previous one, even within one
    /// millisecond. Saturates for an out-of-range value stored before the range was enforced,
    /// so that such an object can still be written (and repaired).
    static func nextModification(after previous: Int64, now: Int64) -> Int64 {
        max(now, previous.saturatingAdd(1))
    }
}
