import Foundation

/// Keys that the configuration leaves unset are generated once and kept in `keys.json` in the
/// data directory (readable by the owner only), so they survive restarts.
public struct KeyStore: Sendable {
    public let path: String

    public init(dataDirectory: String) {
        path = (dataDirectory as NSString).appendingPathComponent("keys.json")
    }

    /// The keys for every environment: configured keys win, then stored ones, then new ones.
    /// Returns the keys and which environments had keys generated just now.
    public func resolve(_ configuration: StackMobConfiguration) throws -> (keys: [EnvironmentKind: AppKeys], generated: [EnvironmentKind]) {
        var stored = try load()
        var keys: [EnvironmentKind: AppKeys] = [:]
        var generated: [EnvironmentKind] = []
        for kind in EnvironmentKind.allCases {
            let settings = configuration.settings(for: kind)
            let previous = stored[kind.rawValue]?.objectValue
            var publicKey = settings.publicKey ?? previous?["public_key"]?.stringValue
            var privateKey = settings.privateKey ?? previous?["private_key"]?.stringValue
            if publicKey == nil || privateKey == nil {
                publicKey = publicKey ?? UUID().uuidString.lowercased()
                privateKey = privateKey ?? UUID().uuidString.lowercased()
                generated.append(kind)
                stored[kind.rawValue] = .object(["public_key": .string(publicKey!), "private_key": .string(privateKey!)])
            }
            keys[kind] = AppKeys(publicKey: publicKey!, privateKey: privateKey!)
        }
        if !generated.isEmpty {
            try save(stored)
        }
        return (keys, generated)
    }

    /// The keys in force, without generating any: configured keys, then stored ones; an
    /// environment with neither (no start yet) is missing. For `stackmob-server keys`.
    public func current(_ configuration: StackMobConfiguration) throws -> [EnvironmentKind: AppKeys] {
        let stored = try load()
        var keys: [EnvironmentKind: AppKeys] = [:]
        for kind in EnvironmentKind.allCases {
            let settings = configuration.settings(for: kind)
            let previous = stored[kind.rawValue]?.objectValue
            if let publicKey = settings.publicKey ?? previous?["public_key"]?.stringValue,
                let privateKey = settings.privateKey ?? previous?["private_key"]?.stringValue
            {
                keys[kind] = AppKeys(publicKey: publicKey, privateKey: privateKey)
            }
        }
        return keys
    }

    /// Replaces an environment's stored keys (a rotation through the admin API).
    public func store(_ keys: AppKeys, for kind: EnvironmentKind) throws {
        var stored = try load()
        stored[kind.rawValue] = .object(["public_key": .string(keys.publicKey), "private_key": .string(keys.privateKey)])
        try save(stored)
    }

    private func load() throws -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        guard let object = (try? JSONParser.parse(data))?.objectValue else {
            throw ConfigurationError(key: "data_dir", "'\(path)' is not a valid keys file; fix or remove it")
        }
        return object
    }

    private func save(_ stored: JSONObject) throws {
        try? PrivateFiles.createDirectory(atPath: (path as NSString).deletingLastPathComponent)
        // Written whole, then moved into place, so a crash never leaves half a file.
        do {
            try PrivateFiles.write(JSONWriter.bytes(.object(stored)), to: path, durable: true)
        } catch {
            throw ConfigurationError(key: "data_dir", "\(error)")
        }
    }
}
