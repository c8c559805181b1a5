import Crypto
import Foundation

/// The provider authentication token of Apple's push API (token-based, ES256): header
/// `{"alg":"ES256","kid":<key id>}`, claims `{"iss":<team id>,"iat":<seconds>}`, base64url
/// without padding, signed with the .p8 key (raw r‖s signature).
public enum APNsJWT {
    public static func make(key: P256.Signing.PrivateKey, keyID: String, teamID: String, issuedAtSeconds: Int64) throws -> String {
        let header = JSONWriter.bytes(["alg": "ES256", "kid": .string(keyID)])
        let claims = JSONWriter.bytes(["iss": .string(teamID), "iat": .integer(issuedAtSeconds)])
        let signingInput = base64URL(Data(header)) + "." + base64URL(Data(claims))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + base64URL(signature.rawRepresentation)
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Reads the .p8 key (PEM, PKCS#8 or SEC1).
    public static func loadKey(file: String) throws -> P256.Signing.PrivateKey {
        let pem = try String(contentsOfFile: file, encoding: .utf8)
        return try P256.Signing.PrivateKey(pemRepresentation: pem)
    }
}
