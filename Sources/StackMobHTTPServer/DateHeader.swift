import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The `Date` header of every response, formatted at most once a second and shared by a
/// listener's connections.
final class DateHeader: Sendable {
    private let cache = Mutex<(second: Int, text: String)>((-1, ""))

    /// The current second, formatted (`HTTPDate`).
    func current() -> String {
        let now = time(nil)
        if let cached = cache.withLock({ $0.second == now ? $0.text : nil }) { return cached }
        let text = HTTPDate.format(secondsSince1970: now)
        cache.withLock { $0 = (now, text) }
        return text
    }
}
