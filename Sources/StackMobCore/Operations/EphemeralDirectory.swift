import Foundation

/// `serve --ephemeral`: a data directory of its own in the system's temporary directory, removed
/// when the server stops.
public struct EphemeralDirectory: Sendable {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-ephemeral-\(UUID().uuidString)").path
        try PrivateFiles.createDirectory(atPath: path)
    }

    /// The server's data directory for this run: fsync skipped (`storage.synchronous: normal`),
    /// since nothing here outlives the process anyway.
    /// Ephemeral data is SQLite's whatever the configuration names: a throw-away server must
    /// leave nothing behind, and a shared database is the opposite of throw-away.
    public func apply(to configuration: inout StackMobConfiguration) {
        configuration.dataDirectory = path
        configuration.ephemeral = true
        configuration.storage.engine = .sqlite
        configuration.durability = .normal
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
