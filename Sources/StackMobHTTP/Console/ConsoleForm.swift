import Foundation
import Hummingbird
import NIOCore

/// An `application/x-www-form-urlencoded` body (or query string): the console's forms are plain
/// HTML forms, so that every page works without JavaScript.
struct ConsoleForm: Sendable {
    let pairs: [(String, String)]

    init(pairs: [(String, String)]) { self.pairs = pairs }

    init(encoded: String) {
        pairs = encoded.split(separator: "&").compactMap { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(pieces[0]), !name.isEmpty else { return nil }
            return (name, pieces.count > 1 ? Self.decode(pieces[1]) ?? "" : "")
        }
    }

    /// The body of a POST; a form larger than 1 MiB is refused by the body reader.
    static func read(_ request: Request) async throws -> ConsoleForm {
        let buffer = try await request.body.collect(upTo: 1024 * 1024)
        return ConsoleForm(encoded: String(buffer: buffer))
    }

    static func query(_ request: Request) -> ConsoleForm {
        ConsoleForm(encoded: request.uri.query ?? "")
    }

    subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    /// A value with surrounding white space removed, nil when empty.
    func trimmed(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// Percent-encodes one query component (a value the console puts into an admin API path).
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
