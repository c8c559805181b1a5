import Foundation

/// A file as every SDK sends it in place of a field value (PROTOCOL §7):
/// `Content-Type: <mime>\nContent-Disposition: attachment; filename=<name>\nContent-Transfer-Encoding: base64\n\n<base64>`.
public struct BinaryEnvelope: Sendable, Equatable {
    public let contentType: String
    public let filename: String
    public let bytes: [UInt8]

    public init(contentType: String, filename: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.filename = filename
        self.bytes = bytes
    }

    /// Whether a string is meant as an envelope. The SDKs tell a URL from an upload the same way:
    /// an upload starts with `Content-Type` (§7).
    public static func looksLikeEnvelope(_ text: String) -> Bool {
        text.prefix(13).lowercased() == "content-type:"
    }

    /// Parses an envelope; `field` names the field in errors. Header names are matched
    /// case-insensitively and CRLF is accepted for LF, but the base64 must be the standard
    /// alphabet with padding and no line breaks, as every SDK sends it.
    public static func parse(_ text: String, field: String) throws(BinaryFieldError) -> BinaryEnvelope {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        guard let separator = normalized.range(of: "\n\n") else {
            throw .malformedEnvelope(field: field, reason: "no blank line between the headers and the base64 data")
        }
        var headers: [String: String] = [:]
        for line in normalized[..<separator.lowerBound].split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else {
                throw .malformedEnvelope(field: field, reason: "header line without a colon")
            }
            let name = line[..<colon].trimmingSpaces().lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingSpaces()
        }
        guard let contentType = headers["content-type"], !contentType.isEmpty else {
            throw .malformedEnvelope(field: field, reason: "missing Content-Type")
        }
        if let encoding = headers["content-transfer-encoding"], encoding.lowercased() != "base64" {
            throw .malformedEnvelope(field: field, reason: "Content-Transfer-Encoding must be base64")
        }
        guard let disposition = headers["content-disposition"], let filename = Self.filename(in: disposition) else {
            throw .malformedEnvelope(field: field, reason: "missing Content-Disposition with a filename")
        }
        let encoded = normalized[separator.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: encoded) else { throw .invalidBase64(field: field) }
        return BinaryEnvelope(contentType: contentType, filename: filename, bytes: Array(data))
    }

    /// `attachment; filename=photo.png` or `filename="photo.png"`.
    private static func filename(in disposition: String) -> String? {
        for parameter in disposition.split(separator: ";") {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingSpaces().lowercased() == "filename" else { continue }
            var value = parts[1].trimmingSpaces()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
