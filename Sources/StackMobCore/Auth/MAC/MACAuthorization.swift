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
            let key = pair[0].trimmingSpaces()
            let value = pair[1].trimmingSpaces()
            guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return nil }
            values[key] = String(value.dropFirst().dropLast())
        }
        guard let id = values["id"], !id.isEmpty, let ts = values["ts"].flatMap({ Int64($0) }), let nonce = values["nonce"],
            let mac = values["mac"], !mac.isEmpty
        else { return nil }
        return MACAuthorization(id: id, timestamp: ts, nonce: nonce, mac: mac)
    }
}
