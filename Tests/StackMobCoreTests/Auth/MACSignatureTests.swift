@testable import StackMobCore
import Testing

@Suite("OAuth 2.0 MAC: signature, header, candidates")
struct MACSignatureTests {
    @Test("the test vector of PROTOCOL §3.2")
    func vector() {
        let normalized = MACSignature.normalizedString(ts: 1337, nonce: "noncenonce", method: "POST", requestURI: "hello", host: "host", port: 443)
        #expect(normalized == "1337\nnoncenonce\nPOST\nhello\nhost\n443\n\n")
        let mac = MACSignature.mac(key: "macKey", ts: 1337, nonce: "noncenonce", method: "POST", requestURI: "hello", host: "host", port: 443)
        #expect(mac == "ZpsJivPXcc4cTc6I50bC5XpQfEU=")
        #expect(
            MACSignature.header(id: "accessToken", ts: 1337, nonce: "noncenonce", mac: mac)
                == #"MAC id="accessToken",ts="1337",nonce="noncenonce",mac="ZpsJivPXcc4cTc6I50bC5XpQfEU=""#)
    }

    @Test("the header parses, with or without spaces; malformed headers do not")
    func parse() {
        let parsed = MACAuthorization.parse(#"MAC id="tok",ts="1337",nonce="n42",mac="abc=""#)
        #expect(parsed == MACAuthorization(id: "tok", timestamp: 1337, nonce: "n42", mac: "abc="))
        #expect(MACAuthorization.parse(#"MAC id="tok", ts="1337", nonce="n42", mac="abc=""#) == parsed)
        #expect(MACAuthorization.parse(#"MAC id="tok",ts="x",nonce="n42",mac="abc=""#) == nil)
        #expect(MACAuthorization.parse(#"MAC id="tok",nonce="n42",mac="abc=""#) == nil)
        #expect(MACAuthorization.parse("Bearer abc") == nil)
        // Spaces and tabs around names and values, as Foundation's `.whitespaces` trims them
        // (a no-break space is a space separator too); a value without its quotes is refused.
        #expect(MACAuthorization.parse("MAC id=\"tok\" ,\tts = \"1337\",\u{00A0}nonce=\"n42\",  mac=\"abc=\"  ") == parsed)
        #expect(MACAuthorization.parse("MAC id=\"tok\",ts=1337,nonce=\"n42\",mac=\"abc=\"") == nil)
        #expect(MACAuthorization.parse("MAC id=\"tok\",ts=\" \",nonce=\"n42\",mac=\"abc=\"") == nil)
        // Inside the quotes nothing is trimmed.
        #expect(MACAuthorization.parse("MAC id=\"tok\",ts=\"1337\",nonce=\" n \",mac=\"abc=\"")?.nonce == " n ")
    }

    @Test("request-uri candidates: raw, fully decoded, decoded except the iOS escapes")
    func candidates() {
        let candidates = MACCandidates.requestURIs(target: "/todo?age%5Blt%5D=25&name=a%20b%2Fc")
        #expect(candidates.contains("/todo?age%5Blt%5D=25&name=a%20b%2Fc"))
        #expect(candidates.contains("/todo?age[lt]=25&name=a b/c"))
        #expect(candidates.contains("/todo?age[lt]=25&name=a%20b%2Fc"))
        #expect(MACCandidates.requestURIs(target: "/todo?").contains("/todo"))
        #expect(MACCandidates.requestURIs(target: "/todo/1") == ["/todo/1"])
    }

    @Test("host and port: explicit port, proxy headers, or both defaults")
    func hostAndPort() {
        #expect(MACCandidates.hostAndPorts(host: "api.example.com:8080", forwardedProto: nil, forwardedPort: nil)! == ("api.example.com", [8080]))
        #expect(MACCandidates.hostAndPorts(host: "api.example.com", forwardedProto: nil, forwardedPort: nil)! == ("api.example.com", [80, 443]))
        #expect(MACCandidates.hostAndPorts(host: "api.example.com:8080", forwardedProto: "https", forwardedPort: nil)! == ("api.example.com", [8080, 443]))
        #expect(MACCandidates.hostAndPorts(host: "api.example.com", forwardedProto: "https", forwardedPort: "8443")! == ("api.example.com", [8443, 443]))
        #expect(MACCandidates.hostAndPorts(host: "[::1]:9000", forwardedProto: nil, forwardedPort: nil)! == ("[::1]", [9000]))
        #expect(MACCandidates.hostAndPorts(host: nil, forwardedProto: nil, forwardedPort: nil) == nil)
    }

    @Test("secrets at rest: the MAC key opens only with its access token")
    func sealing() throws {
        let sealed = try SessionSecrets.seal(macKey: "the-mac-key", accessToken: "token-a")
        #expect(SessionSecrets.open(sealed: sealed, accessToken: "token-a") == "the-mac-key")
        #expect(SessionSecrets.open(sealed: sealed, accessToken: "token-b") == nil)
        #expect(SessionSecrets.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SessionSecrets.generateToken().count == 32)
    }

    @Test("only a nonce and mac no longer than the SDKs' are recorded before the signature is checked")
    func recordableUnverified() {
        let sdk = MACAuthorization(id: "tok", timestamp: 1337, nonce: "n4242", mac: "ZpsJivPXcc4cTc6I50bC5XpQfEU=")
        #expect(UserAccounts.isRecordableUnverified(sdk))
        let longest = String(repeating: "m", count: UserAccounts.longestUnverifiedPart)
        #expect(UserAccounts.isRecordableUnverified(MACAuthorization(id: "tok", timestamp: 1337, nonce: longest, mac: longest)))
        #expect(!UserAccounts.isRecordableUnverified(MACAuthorization(id: "tok", timestamp: 1337, nonce: "n1", mac: longest + "=")))
        #expect(!UserAccounts.isRecordableUnverified(MACAuthorization(id: "tok", timestamp: 1337, nonce: longest + "1", mac: "m")))
    }

    @Test("the nonce cache refuses a replay until it expires, and accepts a different mac")
    func nonces() async {
        let cache = NonceCache(capacity: 4)
        #expect(await cache.record(SeenRequest(token: "t", ts: 1, nonce: "n1", mac: "m", expiresAt: 100, now: 0)))
        #expect(await !cache.record(SeenRequest(token: "t", ts: 1, nonce: "n1", mac: "m", expiresAt: 100, now: 50)))
        #expect(await cache.record(SeenRequest(token: "t", ts: 1, nonce: "n1", mac: "other", expiresAt: 100, now: 50)))
        #expect(await cache.record(SeenRequest(token: "t", ts: 1, nonce: "n1", mac: "m", expiresAt: 200, now: 150)))
        for index in 0..<20 {
            #expect(await cache.record(SeenRequest(token: "t", ts: 2, nonce: "n\(index)", mac: "m", expiresAt: 1000, now: 160)))
        }
    }
}
