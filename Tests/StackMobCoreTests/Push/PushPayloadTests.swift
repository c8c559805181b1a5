import Crypto
import Foundation
import StackMobCore
import Testing

@Suite("Push payloads, tokens and the APNs token (§11)")
struct PushPayloadTests {
    @Test("aps mapping: badge, sound, alert or message move into aps; the rest stays")
    func apsMapping() throws {
        let payload = try PushPayload(["alert": "a", "message": "m", "badge": 2, "sound": "s", "k": "v"])
        #expect(payload.body(for: .ios) == ["aps": ["alert": "a", "badge": 2, "sound": "s"], "k": "v"])
        #expect(try PushPayload(["message": "m"]).body(for: .ios) == ["aps": ["alert": "m"]])
        #expect(try PushPayload(["k": "v"]).body(for: .ios) == ["aps": [:], "k": "v"])
        #expect(payload.body(for: .androidgcm) == payload.values)
    }

    @Test("size limits per token type")
    func limits() throws {
        func payload(bytes: Int) throws -> PushPayload {
            let fill = bytes - JSONWriter.bytes(["a": ""]).count
            return try PushPayload(["a": .string(String(repeating: "x", count: fill))])
        }
        #expect(try payload(bytes: 256).reaches(.ios))
        #expect(try !payload(bytes: 257).reaches(.ios))
        #expect(try payload(bytes: 257).reaches(.android))
        #expect(try payload(bytes: 1024).reaches(.androidgcm))
        #expect(throws: PushError.payloadTooLarge(bytes: 1025)) { try payload(bytes: 1025) }
        #expect(throws: PushError.invalidPayload("the payload is empty")) { try PushPayload([:]) }
        #expect(throws: PushError.invalidPayload("badge must be an integer")) { try PushPayload(["badge": 1.5]) }
    }

    @Test("token types are case-insensitive; iOS tokens are 64 hex characters, kept lower-case")
    func tokens() throws {
        #expect(try PushTokenType(wire: "androidGCM") == .androidgcm)
        #expect(try PushTokenType(wire: "IOS") == .ios)
        #expect(throws: PushError.unknownTokenType("apns")) { try PushTokenType(wire: "apns") }
        let upper = String(repeating: "AB", count: 32)
        #expect(try PushToken(type: .ios, token: upper).token == upper.lowercased())
        #expect(throws: PushError.self) { try PushToken(type: .ios, token: String(repeating: "a", count: 63)) }
        #expect(throws: PushError.self) { try PushToken(type: .ios, token: "<" + String(repeating: "a", count: 62) + ">") }
        #expect(throws: PushError.self) { try PushToken(type: .android, token: "") }
        #expect(try PushToken(type: .android, token: "any thing").token == "any thing")
    }

    @Test("the APNs provider token is an ES256 JWT that verifies with the key")
    func jwt() throws {
        let key = P256.Signing.PrivateKey()
        let token = try APNsJWT.make(key: key, keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAtSeconds: 1_700_000_000)
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        func decode(_ part: String) -> Data? {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            return Data(base64Encoded: base64)
        }
        #expect(try JSONParser.parse(Array(#require(decode(parts[0])))) == ["alg": "ES256", "kid": "ABC123DEFG"])
        #expect(try JSONParser.parse(Array(#require(decode(parts[1])))) == ["iss": "TEAM123456", "iat": 1_700_000_000])
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: #require(decode(parts[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(!token.contains("="))
    }
}
