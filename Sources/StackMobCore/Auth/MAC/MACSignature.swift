import Crypto
import Foundation

/// The OAuth 2.0 MAC signature the SDKs compute (draft-ietf-oauth-v2-http-mac-01 layout, no body
/// hash, empty ext; PROTOCOL §3.2). Shared by the verifier and the test client.
public enum MACSignature {
    public static func normalizedString(ts: Int64, nonce: String, method: String, requestURI: String, host: String, port: Int) -> String {
        "\(ts)\n\(nonce)\n\(method)\n\(requestURI)\n\(host)\n\(port)\n\n"
    }

    /// Base64 of HMAC-SHA1 keyed with the MAC key's UTF-8 bytes.
    public static func mac(key: String, ts: Int64, nonce: String, method: String, requestURI: String, host: String, port: Int) -> String {
        let message = normalizedString(ts: ts, nonce: nonce, method: method, requestURI: requestURI, host: host, port: port)
        let code = HMAC<Insecure.SHA1>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Data(code).base64EncodedString()
    }

    /// The header value an SDK sends.
    public static func header(id: String, ts: Int64, nonce: String, mac: String) -> String {
        "MAC id=\"\(id)\",ts=\"\(ts)\",nonce=\"\(nonce)\",mac=\"\(mac)\""
    }
}
