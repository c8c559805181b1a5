/// A request path checked to stay inside a site's directory: percent-decoded segments, none of
/// them `.`, `..`, hidden (a leading `.`, except `.well-known`), nor holding `/`, `\` or NUL once
/// decoded. Checked segment by segment *after* decoding, so `%2e%2e` and `..%2f` are refused the
/// same as a literal `..`.
public struct SitePath: Sendable, Equatable {
    public let segments: [String]
    /// Whether the path ended with `/` (a directory URL).
    public let isDirectory: Bool

    /// Throws `HTML5Error.invalidPath` for anything but a plain path.
    public init(_ rawPath: String) throws {
        guard rawPath.hasPrefix("/") else { throw HTML5Error.invalidPath(rawPath) }
        var segments: [String] = []
        for raw in rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if raw.isEmpty { continue }  // `//` as `/`, as every web server does
            guard let decoded = Self.percentDecoded(raw),
                !decoded.contains(where: { $0 == "/" || $0 == "\\" || $0 == "\0" }),
                decoded != ".", decoded != "..",
                !decoded.hasPrefix(".") || decoded == ".well-known"
            else { throw HTML5Error.invalidPath(rawPath) }
            segments.append(decoded)
        }
        self.segments = segments
        isDirectory = rawPath.hasSuffix("/")
    }

    /// Whether the last segment looks like a page route rather than an asset (no `.` in it).
    public var looksLikePage: Bool {
        !(segments.last?.contains(".") ?? false)
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
