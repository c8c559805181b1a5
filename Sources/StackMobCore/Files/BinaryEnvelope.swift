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
    ///
    /// Works on the text's bytes in one pass: the payload is most of a request of up to
    /// `limits.max_body_bytes`, and Foundation's string functions on Linux go through it at a
    /// few megabytes a second.
    public static func parse(_ text: String, field: String) throws(BinaryFieldError) -> BinaryEnvelope {
        var text = text
        let parsed = text.withUTF8 { bytes in Result { () throws(BinaryFieldError) in try parse(bytes, field: field) } }
        return try parsed.get()
    }

    /// The most header bytes an envelope has before its blank line: three short headers.
    static let maxHeaderBytes = 8 * 1024

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, field: String) throws(BinaryFieldError) -> BinaryEnvelope {
        let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        var headers: [String: String] = [:]
        var lineStart = 0
        var bodyStart: Int?
        var index = 0
        while index < bytes.count, index <= maxHeaderBytes {
            defer { index += 1 }
            guard bytes[index] == newline else { continue }
            var lineEnd = index
            if lineEnd > lineStart, bytes[lineEnd - 1] == carriageReturn { lineEnd -= 1 }
            if lineEnd == lineStart {
                bodyStart = index + 1
                break
            }
            let line = String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), as: UTF8.self)
            guard let colon = line.firstIndex(of: ":") else {
                throw .malformedEnvelope(field: field, reason: "header line without a colon")
            }
            headers[line[..<colon].trimmingSpaces().lowercased()] = line[line.index(after: colon)...].trimmingSpaces()
            lineStart = index + 1
        }
        guard let bodyStart else {
            throw .malformedEnvelope(field: field, reason: "no blank line between the headers and the base64 data")
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
        guard let decoded = Base64.decode(Base64.trimmingWhitespace(UnsafeBufferPointer(rebasing: bytes[bodyStart...]))) else {
            throw .invalidBase64(field: field)
        }
        return BinaryEnvelope(contentType: contentType, filename: filename, bytes: decoded)
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
