/// Where the bytes of binary fields are kept (PROTOCOL §7): a local directory by default, an
/// S3-compatible object store as an option.
public protocol FileStore: Sendable {
    /// Stores the bytes under `key`, replacing any previous file there.
    func put(_ bytes: [UInt8], key: FileKey, contentType: String) async throws
    /// Removes the file; a missing file is not an error.
    func delete(_ key: FileKey) async throws
    /// The public URL base of the files when the store serves them itself (S3), without a
    /// trailing slash; nil when the server serves them.
    var publicBaseURL: String? { get }
    /// Removes what writes cut short by a crash left behind, older than `age`; how many went.
    func sweepLeftovers(olderThan age: Duration) async throws -> Int
}

extension FileStore {
    /// A store whose writes leave nothing behind when cut short (S3's uploads are whole or absent).
    public func sweepLeftovers(olderThan age: Duration) async throws -> Int { 0 }
}

/// A stored file as the server serves it: where its bytes are and what to say about them (the
/// bytes themselves are streamed from `path`, never loaded whole).
public struct StoredFile: Sendable {
    public let path: String
    public let size: Int
    public let contentType: String
    /// A strong validator: the SHA-256 of the bytes, as a quoted ETag.
    public let etag: String
}
