import Foundation

/// Where a field's file lives: `<environment>/<schema>/<id>/<field>/<filename>`, every segment
/// safe as one URL path segment and one directory name (PROTOCOL §7, D32).
public struct FileKey: Sendable, Hashable {
    public let environment: EnvironmentKind
    public let schema: String
    public let id: String
    public let field: String
    /// Sanitised: letters, digits, `.`, `-`, `_`; never starting with a dot.
    public let filename: String

    public init(environment: EnvironmentKind, schema: String, id: String, field: String, filename: String) {
        self.environment = environment
        self.schema = schema
        self.id = id
        self.field = field
        self.filename = Self.sanitize(filename)
    }

    /// The key as path segments, escaped.
    public var segments: [String] {
        [environment.rawValue, schema, Self.escape(id), field, filename]
    }

    /// Where the bytes are kept (local directory, object store): environments apart.
    public var path: String { segments.joined(separator: "/") }

    /// What follows the environment's files base URL in a public URL (D32):
    /// `<schema>/<id>/<field>/<filename>`. The base tells the environments apart.
    public var urlPath: String { segments.dropFirst().joined(separator: "/") }

    /// The key of a URL this server produced for `environment`: its last four path segments.
    /// Nil for anything else, so that a URL a client wrote by hand never names a file to delete.
    public init?(url: String, environment: EnvironmentKind) {
        guard let components = URLComponents(string: url), components.scheme?.hasPrefix("http") == true else { return nil }
        let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).suffix(4).map(String.init)
        guard parts.count == 4, Identifier.isValidSchemaName(parts[0]), Identifier.isValidFieldName(parts[2]),
            let id = parts[1].removingPercentEncoding, !id.isEmpty, Self.escape(id) == parts[1],
            Self.sanitize(parts[3]) == parts[3]
        else { return nil }
        self.init(environment: environment, schema: parts[0], id: id, field: parts[2], filename: parts[3])
    }

    /// The same key with another file name (`a.png` → `a-1.png`, `a-1.png` → `a-2.png`), for a
    /// file that must not take its predecessor's path.
    public var alternate: FileKey {
        // Sanitised names never start with a dot, so a dot found is an extension's.
        let dot = filename.lastIndex(of: ".") ?? filename.endIndex
        var stem = filename[..<dot]
        let suffix = filename[dot...]
        var number = 1
        // The name is the client's: `a-9223372036854775807.png` has no successor, and gets `-1`
        // appended instead of trapping.
        if let dash = stem.lastIndex(of: "-"), let previous = Int(stem[stem.index(after: dash)...]), previous > 0, previous < .max {
            number = previous + 1
            stem = stem[..<dash]
        }
        return FileKey(environment: environment, schema: schema, id: id, field: field, filename: "\(stem.prefix(180))-\(number)\(suffix.prefix(15))")
    }

    static func sanitize(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        var clean = String(name.map { allowed.contains($0) ? $0 : "_" }.prefix(200))
        if clean.isEmpty || clean.hasPrefix(".") { clean = "file" + clean }
        return clean
    }

    /// Percent-encodes everything but unreserved characters; `.` and `..` are encoded too, so an
    /// id never walks up a directory.
    static func escape(_ id: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~")
        if id.contains(where: { $0 != "." }) { allowed.insert(".") }
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }
}
