/// One environment's requests per minute over the last day: counts by status and latency as
/// histogram buckets, so that minutes merge into hours exactly (a percentile of an hour is read
/// from the hour's summed buckets, never averaged from its minutes' percentiles).
///
/// A ring of 1,440 slots, one per minute of the day, each reused when its minute comes round
/// again: memory is fixed (about 100 KB per environment) however long the server runs.
struct MinuteAggregates: Sendable {
    /// Upper bounds of the latency buckets, in microseconds; the last bucket has none.
    static let bucketBounds: [Int64] = [1_000, 2_000, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 10_000_000]
    static let slots = 1_440

    struct Minute: Sendable, Equatable {
        /// Minutes since the epoch.
        var minute: Int64
        var requests = 0
        var clientErrors = 0
        var serverErrors = 0
        var buckets = [Int](repeating: 0, count: MinuteAggregates.bucketBounds.count + 1)

        mutating func merge(_ other: Minute) {
            requests += other.requests
            clientErrors += other.clientErrors
            serverErrors += other.serverErrors
            for index in buckets.indices { buckets[index] += other.buckets[index] }
        }

        /// The latency at `quantile` (0.5, 0.99), as the upper bound of the bucket that holds it
        /// in milliseconds; nil without requests. The last bucket reports the largest bound.
        func latencyMilliseconds(at quantile: Double) -> Double? {
            guard requests > 0 else { return nil }
            let rank = max(1, Int((Double(requests) * quantile).rounded(.up)))
            var seen = 0
            for (index, count) in buckets.enumerated() {
                seen += count
                if seen >= rank {
                    let bound = MinuteAggregates.bucketBounds[min(index, MinuteAggregates.bucketBounds.count - 1)]
                    return Double(bound) / 1_000
                }
            }
            return Double(MinuteAggregates.bucketBounds.last!) / 1_000
        }
    }

    private var ring: [Minute?] = Array(repeating: nil, count: slots)

    mutating func record(minute: Int64, status: Int, microseconds: Int64) {
        let slot = Int(minute % Int64(Self.slots))
        if ring[slot]?.minute != minute { ring[slot] = Minute(minute: minute) }
        ring[slot]!.requests += 1
        if (400..<500).contains(status) { ring[slot]!.clientErrors += 1 }
        if status >= 500 { ring[slot]!.serverErrors += 1 }
        let bucket = Self.bucketBounds.firstIndex { microseconds <= $0 } ?? Self.bucketBounds.count
        ring[slot]!.buckets[bucket] += 1
    }

    /// The `count` periods of `width` minutes that end with the minute `now`, oldest first,
    /// each the sum of its minutes; periods without requests are there, empty.
    func periods(endingAt now: Int64, width: Int64, count: Int) -> [Minute] {
        let first = now - width * Int64(count) + 1
        var periods = (0..<count).map { Minute(minute: first + Int64($0) * width) }
        for slot in ring {
            guard let slot, slot.minute >= first, slot.minute <= now else { continue }
            periods[Int((slot.minute - first) / width)].merge(slot)
        }
        return periods
    }
}
