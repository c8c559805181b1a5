import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The key that seals the secrets the server must read back later, before they reach the
/// database: the social providers' tokens, which outlive the session that stored them (PROTOCOL
/// §9), unlike the session secrets, which are hashed or sealed with the access token
/// (`SessionSecrets`). AES-GCM with 32 random bytes kept in `<data_dir>/seal.key` (`0600`), made
/// at the first start: a copy of the database alone holds no usable token (docs/operations.md,
/// "Data at rest").
///
/// Instances that share one database need the same file (docs/operations.md, "More than one
/// instance").
public struct SealingKey: Sendable {
    /// Starts every sealed value. A value without it was stored in clear by an earlier version:
    /// read as it is, and sealed when it is next written.
    static let prefix = "sealed:v1:"

    /// The key's bytes (Crypto's `SymmetricKey` is not `Sendable`; one is made for each use).
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var key: SymmetricKey { SymmetricKey(data: bytes) }

    public static func path(dataDirectory: String) -> String {
        (dataDirectory as NSString).appendingPathComponent("seal.key")
    }

    /// The key in the data directory, made now if there is none. The file holds the key in
    /// base64, so that an operator can copy it to another instance as text.
    public static func resolve(dataDirectory: String) throws -> SealingKey {
        let path = path(dataDirectory: dataDirectory)
        if let bytes = try load(path) { return SealingKey(bytes: bytes) }
        let made = SymmetricKey(size: .bits256)
        let text = made.withUnsafeBytes { Data($0).base64EncodedString() } + "\n"
        // Written under another name, then linked into place only if no other process (a command
        // started at the same time) made one meanwhile: whichever came first is the key.
        let temporary = "\(path).\(UUID().uuidString).tmp"
        do {
            try PrivateFiles.write(Array(text.utf8), to: temporary, durable: true)
        } catch {
            throw ConfigurationError(key: "data_dir", "cannot write '\(path)': \(error.localizedDescription)")
        }
        defer { unlink(temporary) }
        if link(temporary, path) != 0, errno != EEXIST {
            throw ConfigurationError(key: "data_dir", "cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        // The link's name on the disk too: a key lost to a power loss would be made again, and
        // what the old one sealed could not be read.
        do {
            try DiskSync.system.syncDirectory(containing: path)
        } catch {
            throw ConfigurationError(key: "data_dir", "cannot write '\(path)': \(error.localizedDescription)")
        }
        guard let bytes = try load(path) else { throw ConfigurationError(key: "data_dir", "cannot read '\(path)'") }
        return SealingKey(bytes: bytes)
    }

    private static func load(_ path: String) throws -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: text), bytes.count == 32 else {
            throw ConfigurationError(
                key: "data_dir", "'\(path)' is not a seal key (32 bytes in base64); restore it from a backup of the data directory")
        }
        return Array(bytes)
    }

    /// The value to store for `text`.
    public func seal(_ text: String) throws -> String {
        guard let combined = try AES.GCM.seal(Data(text.utf8), using: key).combined else {
            throw CryptoKitError.incorrectParameterSize
        }
        return Self.prefix + combined.base64EncodedString()
    }

    /// The text of a stored value: opened when sealed, as it is when stored in clear. Nil when
    /// it does not open with this key (another instance's key, or an altered row).
    public func open(_ stored: String) -> String? {
        guard stored.hasPrefix(Self.prefix) else { return stored }
        guard let combined = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
            let box = try? AES.GCM.SealedBox(combined: combined),
            let plain = try? AES.GCM.open(box, using: key)
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }
}
