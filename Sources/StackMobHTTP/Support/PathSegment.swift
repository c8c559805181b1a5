import StackMobCore

/// Percent-decoding of path segments (PROTOCOL §2.2). Hummingbird hands routes the raw segments.
enum PathSegment {
    /// Decodes `%XX` escapes. In an object-id segment a literal `+` is a space: the Java SDK
    /// form-encodes the last segment, while JS and iOS always send a real `+` as `%2B`.
    static func decode(_ raw: some StringProtocol, plusAsSpace: Bool = false) throws(RequestError) -> String {
        // Most segments (schema names, generated ids) have nothing to decode: the text as it is,
        // without the byte array and the validation (docs/benchmarks.md, "Figures behind design
        // choices").
        if !raw.utf8.contains(where: { $0 == UInt8(ascii: "%") || ($0 == UInt8(ascii: "+") && plusAsSpace) }) {
            return String(raw)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else {
                    throw .invalidPercentEncoding(String(raw))
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .invalidPercentEncoding(String(raw)) }
        return decoded
    }

}
