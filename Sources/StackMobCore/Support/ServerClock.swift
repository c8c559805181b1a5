import Foundation

/// The server's notion of "now", injected so that tests control time instead of sleeping.
public protocol ServerClock: Sendable {
    /// Milliseconds since the Unix epoch.
    func nowMilliseconds() -> Int64
}

public struct SystemClock: ServerClock {
    public init() {}

    public func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
