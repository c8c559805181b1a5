import Foundation
import Synchronization

/// An environment's key pair while it serves; every request reads it, a rotation replaces it.
public final class LiveKeys: Sendable {
    private let keys: Mutex<AppKeys>

    public init(_ keys: AppKeys) {
        self.keys = Mutex(keys)
    }

    public var current: AppKeys { keys.withLock { $0 } }

    /// Which key a rotation replaces.
    public enum Rotated: String, Sendable {
        case `public`, `private`
    }

    /// A new random key (a lower-case UUID, as generated keys are), written to `keys.json` before
    /// it is put in force. Keys set in the configuration are not rotated here: the configuration
    /// would bring the old one back at the next start.
    public func rotate(_ which: Rotated, kind: EnvironmentKind, settings: EnvironmentSettings, store: KeyStore) throws -> AppKeys {
        switch which {
        case .public where settings.publicKey != nil, .private where settings.privateKey != nil:
            throw AdminError.conflict("The \(which.rawValue) key of \(kind.rawValue) is set in the configuration; change it there")
        case .public, .private:
            break
        }
        return try keys.withLock { current in
            let fresh = UUID().uuidString.lowercased()
            let next = which == .public
                ? AppKeys(publicKey: fresh, privateKey: current.privateKey) : AppKeys(publicKey: current.publicKey, privateKey: fresh)
            try store.store(next, for: kind)
            current = next
            return next
        }
    }
}
