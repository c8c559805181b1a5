/// A custom-code method (PROTOCOL §10, D26): the name clients call, and the webhook that runs it.
public struct CustomCodeMethod: Sendable, Equatable {
    /// As configured; matched case-insensitively and listed this way by `listapi`.
    public var name: String
    public var url: String

    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }
}

extension EnvironmentSettings {
    /// The method a request path segment names, ignoring case (`sendMail`, `SENDMAIL`).
    public func customCodeMethod(named name: String) -> CustomCodeMethod? {
        let lowered = name.lowercased()
        return customCode.first { $0.name.lowercased() == lowered }
    }
}
