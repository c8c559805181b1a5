import Foundation

/// A notification's payload and the rules of PROTOCOL §11.3: how it is shaped for each token
/// type and which types may receive it.
///
/// The size is the byte count of the payload's compact JSON as the client sent it (keys sorted):
/// ≤ 256 bytes reaches iOS and Android, 257–1024 bytes Android only, more is refused.
public struct PushPayload: Sendable, Equatable {
    public static let maximumBytes = 1024

    public let values: JSONObject
    public let byteCount: Int

    public init(_ values: JSONObject) throws(PushError) {
        guard !values.isEmpty else { throw .invalidPayload("the payload is empty") }
        let byteCount = JSONWriter.bytes(.object(values), omittingNulls: false).count
        guard byteCount <= Self.maximumBytes else { throw .payloadTooLarge(bytes: byteCount) }
        if let badge = values["badge"], Self.badge(badge) == nil {
            throw .invalidPayload("badge must be an integer")
        }
        self.values = values
        self.byteCount = byteCount
    }

    /// Whether a device of this type can receive the payload (its size limit).
    public func reaches(_ type: PushTokenType) -> Bool {
        byteCount <= type.payloadLimit
    }

    /// The body sent for a device of this type. iOS: `badge` (int), `sound` and `alert` (or
    /// `message`, which becomes `alert`) move into `aps`; everything else stays custom data.
    /// Android: the payload as sent (the data of the message).
    public func body(for type: PushTokenType) -> JSONObject {
        switch type {
        case .android, .androidgcm:
            return values
        case .ios:
            var custom = values
            var aps: JSONObject = [:]
            if let badge = custom.removeValue(forKey: "badge").flatMap(Self.badge) { aps["badge"] = .integer(badge) }
            if let sound = custom["sound"]?.stringValue {
                aps["sound"] = .string(sound)
                custom["sound"] = nil
            }
            let message = custom["message"]?.stringValue
            if message != nil { custom["message"] = nil }
            if let alert = custom["alert"]?.stringValue {
                aps["alert"] = .string(alert)
                custom["alert"] = nil
            } else if let message {
                aps["alert"] = .string(message)
            }
            custom["aps"] = .object(aps)
            return custom
        }
    }

    /// A badge is an integer; the iOS SDK's `kvPairs` are strings, so `"3"` counts as 3.
    private static func badge(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer(let number): number
        case .string(let text): Int64(text.trimmingSpaces())
        default: nil
        }
    }
}
