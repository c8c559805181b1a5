/// The operator surface (`admin.*`): where the admin API and the web console listen, and which
/// environments `reset` may empty. The defaults keep a development server a single port; the
/// production setup (docs/security.md, "The operator surface") moves them to a listener of
/// their own and off the API port, which faces the internet with a key every app ships.
public struct AdminSettings: Sendable, Equatable {
    /// Whether `/_admin` (API and console) is served on the API port.
    public var onAPIPort = true
    /// The operator listener's address (only with `port`).
    public var host = "127.0.0.1"
    /// Nil = no listener of its own.
    public var port: Int?
    /// The environments `POST /_admin/environments/<env>/reset` may reset. Nil = the default:
    /// development on a server started in CI mode (`--ephemeral` or with fixtures), none on any
    /// other. Production is reset only when it is listed here.
    public var resetEnvironments: [EnvironmentKind]?

    public init() {}

    /// The environments a reset is routed for on a server started this way.
    public func resettable(ciMode: Bool) -> Set<EnvironmentKind> {
        if let resetEnvironments { return Set(resetEnvironments) }
        return ciMode ? [.development] : []
    }
}
