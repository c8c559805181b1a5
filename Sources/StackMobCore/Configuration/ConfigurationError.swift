/// A configuration that cannot be used; start-up stops with this message, which names the key.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The dotted key path, e.g. `environments.production.public_key`.
    public let key: String
    public let problem: String
    /// The path of a key no section knows (`refuseUnknownKeys`); the loader ignores such a key
    /// when only an environment variable set it (`ConfigurationLoader`).
    var unknownKeyPath: [String]?

    public init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }

    init(unknownKey path: [String], _ problem: String) {
        self.init(key: path.joined(separator: "."), problem)
        unknownKeyPath = path
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.key == rhs.key && lhs.problem == rhs.problem
    }

    public var description: String { "configuration key '\(key)': \(problem)" }
}
