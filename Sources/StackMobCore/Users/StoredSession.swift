/// One login session as stored: hashes of its tokens and its sealed MAC key (never the secrets).
public struct StoredSession: Sendable, Equatable {
    public var accessHash: String
    public var refreshHash: String
    public var userSchema: String
    public var userID: String
    /// The MAC key, AES-GCM sealed under a key derived from the access token (`SessionSecrets`).
    public var sealedMACKey: [UInt8]
    /// Milliseconds since the epoch.
    public var expiresAt: Int64
    public var createdAt: Int64

    public init(
        accessHash: String, refreshHash: String, userSchema: String, userID: String, sealedMACKey: [UInt8], expiresAt: Int64,
        createdAt: Int64
    ) {
        self.accessHash = accessHash
        self.refreshHash = refreshHash
        self.userSchema = userSchema
        self.userID = userID
        self.sealedMACKey = sealedMACKey
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }
}
