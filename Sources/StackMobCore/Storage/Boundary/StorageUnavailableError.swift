/// The database could not be reached or prepared at start-up (PostgreSQL down, wrong password):
/// the server exits with this message instead of waiting forever.
public struct StorageUnavailableError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
