/// The four operations a schema permission is set for (PROTOCOL §12.1).
public enum AccessVerb: String, Sendable, CaseIterable {
    case create, read, update, delete
}
