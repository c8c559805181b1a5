import Crypto
import Foundation

/// The secrets of a session and how they are kept at rest: tokens as SHA-256 hashes, the MAC key
/// sealed with AES-GCM under a key derived (HKDF) from the access token, so that a stolen
/// database alone yields neither a token nor a usable MAC key.
public enum SessionSecrets {
    /// 32 characters from the system's cryptographic random source.
    public static func generateToken() -> String { ObjectID.generate() }

    public static func hash(_ secret: String) -> String {
        HexDigit.lowercase(SHA256.hash(data: Data(secret.utf8)))
    }

    public static func seal(macKey: String, accessToken: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(Data(macKey.utf8), using: sealingKey(accessToken))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return Array(combined)
    }

    /// Nil when the sealed bytes do not open with this token (tampered row).
    public static func open(sealed: [UInt8], accessToken: String) -> String? {
        guard let box = try? AES.GCM.SealedBox(combined: Data(sealed)),
            let plain = try? AES.GCM.open(box, using: sealingKey(accessToken))
        else { return nil }
        return String(data: plain, encoding: .utf8)
    }

    private static func sealingKey(_ accessToken: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(accessToken.utf8)), info: Data("stackmob-mac-key-v1".utf8), outputByteCount: 32)
    }
}
