/// A request refused by a schema permission (PROTOCOL §12.2). Objects hidden by the owner and
/// relationship levels are not an `AccessError`: they answer exactly like missing objects
/// (`DatastoreError.objectNotFound` / `.objectNotFoundForDelete`), so that nothing tells a hidden
/// object from one that does not exist.
public enum AccessError: Error, Sendable, Equatable {
    /// The caller lacks the required login, role membership or private key: 401. The iOS and Java
    /// SDKs refresh their token and replay once on it (§2.7).
    case insufficientAuthorization
    /// The verb is Not Allowed on this schema: 405.
    case methodNotAllowed

    /// The exact texts the SDKs rely on (§12.2).
    public var message: String {
        switch self {
        case .insufficientAuthorization: "Insufficient authorization"
        case .methodNotAllowed: "Invalid HTTP method"
        }
    }
}
