import Foundation

/// The last failures of each custom-code method, per environment, for the admin API
/// (docs/operations.md, "Admin API"): a timeout, an unreachable webhook, or a 5xx answer. In memory
/// and bounded (the newest 20 per method): it answers "what went wrong lately", the request log
/// keeps the history.
public actor CustomCodeFailureLog {
    public struct Failure: Sendable, Equatable {
        /// Milliseconds since the epoch.
        public let at: Int64
        /// `timeout`, `unreachable`, or `status <code>`.
        public let reason: String
    }

    static let kept = 20
    private var failures: [String: [Failure]] = [:]

    public init() {}

    public func record(environment: EnvironmentKind, method: String, reason: String) {
        let key = "\(environment.rawValue)/\(method)"
        var list = failures[key] ?? []
        list.append(Failure(at: Int64(Date().timeIntervalSince1970 * 1000), reason: reason))
        failures[key] = Array(list.suffix(Self.kept))
    }

    /// Newest first.
    public func failures(environment: EnvironmentKind, method: String) -> [Failure] {
        (failures["\(environment.rawValue)/\(method)"] ?? []).reversed()
    }
}

extension CustomCodeError {
    /// How a failed call is noted in the failure log.
    public var failureReason: String {
        switch self {
        case .timedOut(_, let seconds): "timeout after \(seconds) seconds"
        case .unreachable: "unreachable"
        }
    }
}
