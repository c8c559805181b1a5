/// The parameters of `Authorization: MAC id="…",ts="…",nonce="…",mac="…"` (PROTOCOL §3.2).
public struct MACAuthorization: Sendable, Equatable {
    public var id: String
    public var timestamp: Int64
    public var nonce: String
    public var mac: String

    public init(id: String, timestamp: Int64, nonce: String, mac: String) {
        self.id = id
        self.timestamp = timestamp
        self.nonce = nonce
        self.mac = mac
    }

    /// Nil when the header is not a well-formed MAC header. Tolerates spaces after commas.
    public static func parse(_ header: String) -> MACAuthorization? {
        guard header.hasPrefix("MAC ") else { return nil }
        var values: [String: String] = [:]
        for part in header.dropFirst(4).split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { return nil }
            let key = trimmingSpaces(pair[0])
            let value = trimmingSpaces(pair[1])
            guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return nil }
            values[String(key)] = String(value.dropFirst().dropLast())
        }
        guard let id = values["id"], !id.isEmpty, let ts = values["ts"].flatMap({ Int64($0) }), let nonce = values["nonce"],
            let mac = values["mac"], !mac.isEmpty
        else { return nil }
        return MACAuthorization(id: id, timestamp: ts, nonce: nonce, mac: mac)
    }

    /// `text` without the spaces and tabs around it: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes (Unicode space separators and tab), without
    /// its round trip through NSString on every signed request.
    private static func trimmingSpaces(_ text: Substring) -> Substring {
        func isSpace(_ character: Character) -> Bool {
            character.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[first...last]
    }
}
