/// How a stored file is handed to a browser. A binary field's bytes and declared type are a
/// client's, and anyone holding the app's public key can write one: served as `text/html` or
/// `image/svg+xml` on the server's own origin, a file would run script with an operator's console
/// session (docs/security.md, "Uploaded files are inert"). So only inert media are shown inline;
/// every other type is handed over as an opaque download, and the same answer is stored with
/// objects kept in S3, which serves them without our headers.
public struct FileDelivery: Sendable, Equatable {
    /// The `Content-Type` the file is served with.
    public let contentType: String
    /// The `Content-Disposition` it is served with: `inline`, or an attachment with its name.
    public let disposition: String

    /// Raster images, audio and video: what browsers render without running anything. Not SVG,
    /// which is a document that runs script, and not PDF, whose viewers refuse the sandbox CSP.
    public static let inlineTypes: Set<String> = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp", "image/x-icon", "image/vnd.microsoft.icon",
    ]

    /// Sent with every stored file the server serves: no sniffing a type out of the bytes, and
    /// a document that, opened anyway, may load nothing and runs in an opaque origin.
    public static let noSniff = "nosniff"
    public static let contentSecurityPolicy = "default-src 'none'; sandbox"

    /// - Parameters:
    ///   - storedType: the type the upload's envelope declared.
    ///   - filename: the key's sanitised name (letters, digits, `.`, `-`, `_`), safe to quote.
    public init(storedType: String, filename: String) {
        let mediaType = Self.mediaType(of: storedType)
        if Self.isInline(mediaType) {
            contentType = mediaType
            disposition = "inline"
        } else {
            contentType = "application/octet-stream"
            disposition = "attachment; filename=\"\(filename)\""
        }
    }

    /// The type without parameters, lower-cased: `Image/PNG; x=1` is `image/png`.
    static func mediaType(of declared: String) -> String {
        let end = declared.firstIndex(of: ";") ?? declared.endIndex
        return declared[..<end].trimmingSpaces().lowercased()
    }

    static func isInline(_ mediaType: String) -> Bool {
        if inlineTypes.contains(mediaType) { return true }
        for family in ["audio/", "video/"] where mediaType.hasPrefix(family) {
            // A subtype of letters, digits and `.+-` only: nothing that a browser could take for
            // another kind of document.
            let subtype = mediaType.dropFirst(family.count)
            return !subtype.isEmpty && subtype.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        }
        return false
    }
}
