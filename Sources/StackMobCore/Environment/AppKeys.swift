/// An environment's key pair (PROTOCOL §1.2).
public struct AppKeys: Sendable, Equatable {
    public let publicKey: String
    /// Secret: never logged, never returned.
    public let privateKey: String

    public init(publicKey: String, privateKey: String) {
        self.publicKey = publicKey
        self.privateKey = privateKey
    }
}
