/// A configuration that cannot be used; start-up stops with this message, which names the key.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The dotted key path, e.g. `environments.production.public_key`.
    public let key: String
    public let problem: String

    public init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }

    public var description: String { "configuration key '\(key)': \(problem)" }
}
