/// The kinds of device token (PROTOCOL §11.1). Wire names are compared case-insensitively and
/// stored lower-case (D12): the Java SDK sends `androidGCM`.
public enum PushTokenType: String, Sendable, CaseIterable, Hashable {
    case ios
    /// C2DM, deprecated, still sent by legacy Java SDKs.
    case android
    case androidgcm

    public init(wire name: String) throws(PushError) {
        guard let type = PushTokenType(rawValue: name.lowercased()) else { throw .unknownTokenType(name) }
        self = type
    }

    /// Android (C2DM or GCM) carries payloads up to 1024 bytes; iOS up to 256 (§11.3).
    public var payloadLimit: Int {
        switch self {
        case .ios: 256
        case .android, .androidgcm: 1024
        }
    }
}
