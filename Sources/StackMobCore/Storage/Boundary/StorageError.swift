/// Failures the storage boundary translates for the domain.
public enum StorageError: Error, Sendable, Equatable {
    case duplicateKey
}
