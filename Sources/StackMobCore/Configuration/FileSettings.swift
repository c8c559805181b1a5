/// Binary field storage (PROTOCOL §7, D32): the `files` configuration section.
public struct FileSettings: Sendable, Equatable {
    /// Largest decoded file accepted, in bytes. The request body limit applies first.
    public var maxBytes = 10 * 1024 * 1024
    public var store = Store.local
    public var s3: S3Settings?

    public enum Store: String, Sendable, CaseIterable {
        case local, s3
    }

    public init() {}
}

/// An S3-compatible object store (`files.s3`). The secret key is never logged.
public struct S3Settings: Sendable, Equatable {
    public var endpoint: String
    public var bucket: String
    public var region: String
    public var accessKeyID: String
    public var secretAccessKey: String

    public init(endpoint: String, bucket: String, region: String = "us-east-1", accessKeyID: String, secretAccessKey: String) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }
}
