/// Binary field failures (PROTOCOL §7); messages are safe to show.
public enum BinaryFieldError: Error, Sendable, Equatable {
    case malformedEnvelope(field: String, reason: String)
    case invalidBase64(field: String)
    case tooLarge(field: String, limit: Int)
    /// The file store failed (disk full, object store unreachable): the server's fault.
    case storageFailed(String)

    public var message: String {
        switch self {
        case .malformedEnvelope(let field, let reason): "\(field) is not a valid file: \(reason)"
        case .invalidBase64(let field): "\(field) is not a valid file: the data is not valid base64 (standard alphabet, padded, no line breaks)"
        case .tooLarge(let field, let limit): "\(field) is larger than the file size limit of \(limit) bytes"
        case .storageFailed: "The file could not be stored"
        }
    }
}
