import Foundation

/// Builds the configuration from, in rising priority: built-in defaults, the configuration file
/// (JSON; `//` and `#` comment lines allowed), and `STACKMOB_…` environment variables.
///
/// Environment variable names: `STACKMOB_` followed by the key path in upper case, path segments
/// joined by a double underscore: `listen.port` → `STACKMOB_LISTEN__PORT`,
/// `environments.production.public_key` → `STACKMOB_ENVIRONMENTS__PRODUCTION__PUBLIC_KEY`. The value
/// is taken as text and converted to the key's type; list values are written as JSON.
public enum ConfigurationLoader {
    public static let environmentPrefix = "STACKMOB_"

    public static func load(file: String?, environment: [String: String]) throws -> ServerConfiguration {
        var tree: JSONObject = [:]
        if let file {
            tree = try parseFile(file)
        }
        try applyOverrides(from: environment, to: &tree)
        return try ConfigurationDecoder.decode(tree)
    }

    static func parseFile(_ path: String) throws -> JSONObject {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: "--config", "cannot read the file '\(path)'")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(data, options: .init(allowsComments: true))
        } catch {
            throw ConfigurationError(key: "--config", "'\(path)' is not valid JSON: \(error)")
        }
        guard let object = value.objectValue else {
            throw ConfigurationError(key: "--config", "'\(path)' must hold a JSON object")
        }
        return object
    }

    static func applyOverrides(from environment: [String: String], to tree: inout JSONObject) throws {
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix(environmentPrefix) {
            let path = name.dropFirst(environmentPrefix.count).lowercased().components(separatedBy: "__")
            guard !path.contains(where: \.isEmpty) else {
                throw ConfigurationError(key: name, "not a valid configuration variable name")
            }
            set(.string(value), at: path[...], in: &tree, source: name)
        }
    }

    private static func set(_ value: JSONValue, at path: ArraySlice<String>, in tree: inout JSONObject, source: String) {
        guard let key = path.first else { return }
        if path.count == 1 {
            tree[key] = value
            return
        }
        var child = tree[key]?.objectValue ?? [:]
        set(value, at: path.dropFirst(), in: &child, source: source)
        tree[key] = .object(child)
    }
}
