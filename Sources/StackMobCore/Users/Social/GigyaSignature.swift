import Crypto
import Foundation

/// Gigya's signature of a user's UID (Gigya's "Validate the UID signature"): base64 of
/// HMAC-SHA1, keyed with the base64-decoded site secret, over `<timestamp>_<UID>`. Checked
/// locally: Gigya needs no call.
public enum GigyaSignature {
    public static func sign(uid: String, timestamp: String, secret: String) -> String? {
        guard let key = Data(base64Encoded: secret) else { return nil }
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data("\(timestamp)_\(uid)".utf8), using: SymmetricKey(data: key))
        return Data(mac).base64EncodedString()
    }

    /// The identity the signature proves, if it is right and its timestamp (seconds) within the
    /// window of `nowMilliseconds`.
    static func verify(
        uid: String, timestamp: String, signature: String, settings: GigyaSettings, nowMilliseconds: Int64
    ) throws(SocialError) -> SocialIdentity {
        guard let expected = sign(uid: uid, timestamp: timestamp, secret: settings.secret), constantTimeEquals(expected, signature) else {
            throw .rejected(.gigya)
        }
        // The same overflow-safe check as request signatures: any Int64 is refused without trapping.
        guard let seconds = Int64(timestamp),
            SignatureTimestampWindow(seconds: Int64(settings.timestampWindowSeconds)).admits(seconds, now: nowMilliseconds)
        else {
            throw .staleTimestamp
        }
        return SocialIdentity(provider: .gigya, accountID: uid, profile: ["UID": .string(uid)])
    }
}
