import Foundation

/// Builds the configuration from, in rising priority: built-in defaults, the configuration file
/// (JSON; `//` and `#` comment lines allowed), and `STACKMOB_…` environment variables.
///
/// Environment variable names: `STACKMOB_` followed by the key path in upper case, path segments
/// joined by a double underscore: `listen.port` → `STACKMOB_LISTEN__PORT`,
/// `environments.production.public_key` → `STACKMOB_ENVIRONMENTS__PRODUCTION__PUBLIC_KEY`. The value
/// is taken as text and converted to the key's type; list values are written as JSON.
///
/// A variable that names no configuration key is left out, not refused: CI jobs set
/// `STACKMOB_HOST`, `STACKMOB_PUBLIC_KEY` and the like for the clients they test with, in the
/// same environment as the server. A file's unknown keys are still refused: a file is written for
/// this server alone, so an unknown key there is a mistake.
public enum ConfigurationLoader {
    public static let environmentPrefix = "STACKMOB_"

    /// The configuration, and the `STACKMOB_…` variables left out because they name no key
    /// (sorted; the caller warns about each once).
    public struct Loaded: Sendable {
        public let configuration: StackMobConfiguration
        public let ignoredVariables: [String]
    }

    public static func load(file: String?, environment: [String: String]) throws -> StackMobConfiguration {
        try loadReportingIgnored(file: file, environment: environment).configuration
    }

    public static func loadReportingIgnored(file: String?, environment: [String: String]) throws -> Loaded {
        let fileTree = try file.map(parseFile) ?? [:]
        let variables = environment.keys.sorted().filter { $0.hasPrefix(environmentPrefix) }.map { name in
            (name: name, path: name.dropFirst(environmentPrefix.count).lowercased().components(separatedBy: "__"))
        }
        // A name with an empty segment (`STACKMOB_`, `STACKMOB_A____B`) cannot name a key.
        var ignored = Set(variables.filter { $0.path.contains(where: \.isEmpty) }.map(\.name))
        // Each round leaves out the variables behind one unknown key; the decoder reports the
        // first unknown key it meets, so there are at most as many rounds as variables.
        while true {
            var tree = fileTree
            for variable in variables where !ignored.contains(variable.name) {
                set(.string(environment[variable.name] ?? ""), at: variable.path[...], in: &tree)
            }
            do {
                return Loaded(configuration: try ConfigurationDecoder.decode(tree), ignoredVariables: ignored.sorted())
            } catch let error as ConfigurationError {
                guard let unknown = error.unknownKeyPath, !contains(unknown[...], in: fileTree) else { throw error }
                let culprits = variables.filter { !ignored.contains($0.name) && $0.path.starts(with: unknown) }
                guard !culprits.isEmpty else { throw error }
                ignored.formUnion(culprits.map(\.name))
            }
        }
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

    private static func set(_ value: JSONValue, at path: ArraySlice<String>, in tree: inout JSONObject) {
        guard let key = path.first else { return }
        if path.count == 1 {
            tree[key] = value
            return
        }
        var child = tree[key]?.objectValue ?? [:]
        set(value, at: path.dropFirst(), in: &child)
        tree[key] = .object(child)
    }

    /// Whether the file itself holds the key at `path`.
    private static func contains(_ path: ArraySlice<String>, in tree: JSONObject) -> Bool {
        guard let key = path.first, let value = tree[key] else { return false }
        if path.count == 1 { return true }
        return value.objectValue.map { contains(path.dropFirst(), in: $0) } ?? false
    }
}
