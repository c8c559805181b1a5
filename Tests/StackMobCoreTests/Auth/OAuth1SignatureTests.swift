import Crypto
import Foundation
import Testing

@testable import StackMobCore

@Suite("OAuth 1.0: encoding, header parsing, base string, signature")
struct OAuth1SignatureTests {
    @Test("percent-encoding keeps only the RFC 3986 unreserved set, upper-case hex")
    func encoding() {
        #expect(OAuth1Encoding.encode("abcXYZ019-._~") == "abcXYZ019-._~")
        #expect(OAuth1Encoding.encode("a b+c/d=e&f*") == "a%20b%2Bc%2Fd%3De%26f%2A")
        #expect(OAuth1Encoding.encode("é") == "%C3%A9")
        #expect(OAuth1Encoding.decode("a%20b+c") == "a b+c")
        #expect(OAuth1Encoding.decode("a%20b+c", plusIsSpace: true) == "a b c")
        #expect(OAuth1Encoding.decode("%zz") == nil)
        #expect(OAuth1Encoding.decode("%4") == nil)
    }

    /// The worked example of the OAuth Core 1.0 specification (Appendix A.5, reused by RFC 5849
    /// implementations): photos.example.net, HMAC-SHA1.
    @Test("the published OAuth 1.0 HMAC-SHA1 example reproduces exactly")
    func publishedExample() {
        let oauth: [(name: String, value: String)] = [
            ("oauth_consumer_key", "dpf43f3p2l4k3l03"), ("oauth_token", "nnch734d00sl2jdk"), ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_timestamp", "1191242096"), ("oauth_nonce", "kllo9940pd9333jh"), ("oauth_version", "1.0"),
        ]
        let strings = OAuth1Candidates.normalizedParameters(oauth: oauth, rawQuery: "file=vacation.jpg&size=original")
        let base = OAuth1Signature.baseString(method: "GET", baseURL: "http://photos.example.net/photos", normalizedParameters: strings[0])
        #expect(
            base
                == "GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3Dkllo9940pd9333jh%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1191242096%26oauth_token%3Dnnch734d00sl2jdk%26oauth_version%3D1.0%26size%3Doriginal"
        )
        #expect(OAuth1Signature.sign(baseString: base, consumerSecret: "kd94hf93k423kf44", tokenSecret: "pfkkdhi9sl3r4s00") == "tR3+Ty81lMeYAr/Fid0kMTYa/WM=")
    }

    @Test("both header shapes parse; realm is dropped; values are decoded")
    func headerShapes() throws {
        let iOS = try #require(
            OAuth1Authorization.parse(
                #"OAuth realm="http://push.stackmob.com",oauth_consumer_key="key",oauth_nonce="n-1",oauth_signature_method="HMAC-SHA1",oauth_timestamp="1700000000",oauth_version="1.0",oauth_signature="ab%2Bc%3D""#
            ))
        #expect(iOS.consumerKey == "key")
        #expect(iOS.signature == "ab+c=")
        #expect(iOS.timestamp == 1_700_000_000)
        #expect(iOS.value("realm") == nil)
        let java = try #require(
            OAuth1Authorization.parse(
                #"OAuth oauth_consumer_key="key", oauth_nonce="n-1", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000", oauth_version="1.0", oauth_signature="ab%2Bc%3D""#
            ))
        #expect(java == iOS)
        #expect(OAuth1Authorization.parse("OAuth oauth_consumer_key=\"k\"") == nil)  // no signature
        #expect(OAuth1Authorization.parse("OAuth garbage") == nil)
        #expect(OAuth1Authorization.parse(#"OAuth oauth_signature="a", oauth_signature="b""#) == nil)  // repeated
        #expect(OAuth1Authorization.parse(#"MAC id="a""#) == nil)
    }

    @Test("parameters sort by key then value; query variants as received and re-encoded")
    func parameterVariants() {
        let strings = OAuth1Candidates.normalizedParameters(oauth: [("oauth_nonce", "a b")], rawQuery: "b=2&a=x%20y&a=1&c=p+q")
        #expect(strings[0] == "a=1&a=x%20y&b=2&c=p+q&oauth_nonce=a%20b")
        #expect(strings.contains("a=1&a=x%20y&b=2&c=p%20q&oauth_nonce=a%20b"))
        #expect(strings.contains("a=1&a=x%2520y&b=2&c=p%2Bq&oauth_nonce=a%20b"))
    }

    @Test("base URLs: lower-cased host, default port with and without, scheme from X-Forwarded-Proto")
    func baseURLs() {
        let plain = OAuth1Candidates.baseURLs(path: "/todo", host: "API.Example.com", forwardedProto: nil, forwardedPort: nil)
        #expect(plain.contains("http://api.example.com/todo"))
        #expect(plain.contains("http://api.example.com:80/todo"))
        #expect(plain.contains("https://api.example.com/todo"))
        #expect(plain.contains("https://api.example.com:443/todo"))
        let proxied = OAuth1Candidates.baseURLs(path: "/todo", host: "api.example.com", forwardedProto: "https", forwardedPort: "8443")
        #expect(proxied == ["https://api.example.com:8443/todo", "https://api.example.com/todo", "https://api.example.com:443/todo"])
        let explicit = OAuth1Candidates.baseURLs(path: "/todo", host: "localhost:8080", forwardedProto: "http", forwardedPort: nil)
        #expect(explicit.contains("http://localhost:8080/todo"))
        #expect(!explicit.contains(where: { $0.hasPrefix("https") }))
    }

    @Test("a signature verifies against the request it signed and not against a tampered one")
    func verification() throws {
        let params: [(name: String, value: String)] = [
            ("oauth_consumer_key", "pk"), ("oauth_nonce", "n"), ("oauth_signature_method", "HMAC-SHA1"), ("oauth_timestamp", "5"),
            ("oauth_version", "1.0"),
        ]
        let encoded: [(name: String, value: String)] = params.map { (name: $0.name, value: OAuth1Encoding.encode($0.value)) }
        let normalized = OAuth1Signature.normalizedParameters(encoded + [(name: "limit", value: "5"), (name: "name", value: "a%20b")])
        let base = OAuth1Signature.baseString(method: "GET", baseURL: "http://localhost/todo", normalizedParameters: normalized)
        let authorization = OAuth1Authorization(parameters: params, signature: OAuth1Signature.sign(baseString: base, consumerSecret: "sk"))
        let good = RequestCredentials(method: "GET", target: "/todo?name=a%20b&limit=5", host: "localhost")
        #expect(OAuth1Verification.matches(authorization, secret: "sk", good))
        #expect(!OAuth1Verification.matches(authorization, secret: "other", good))
        var tampered = good
        tampered.target = "/todo?name=a%20b&limit=6"
        #expect(!OAuth1Verification.matches(authorization, secret: "sk", tampered))
        var otherMethod = good
        otherMethod.method = "DELETE"
        #expect(!OAuth1Verification.matches(authorization, secret: "sk", otherMethod))
    }

    @Test("oauth_body_hash: the body's SHA-1 must match; no hash, no check; a hash without a digest or undecodable fails")
    func bodyHash() {
        let body = Array(#"{"title":"signed"}"#.utf8)
        let digest = Array(Insecure.SHA1.hash(data: body))
        let hash = Data(digest).base64EncodedString()
        func authorization(_ bodyHash: String?) -> OAuth1Authorization {
            OAuth1Authorization(parameters: [("oauth_consumer_key", "pk")] + (bodyHash.map { [("oauth_body_hash", $0)] } ?? []), signature: "s")
        }
        #expect(OAuth1Verification.bodyMatches(authorization(hash), RequestCredentials(bodySHA1: digest)))
        #expect(!OAuth1Verification.bodyMatches(authorization(hash), RequestCredentials(bodySHA1: Array(Insecure.SHA1.hash(data: body + [32])))))
        #expect(!OAuth1Verification.bodyMatches(authorization(hash), RequestCredentials()))
        #expect(!OAuth1Verification.bodyMatches(authorization("not base64!"), RequestCredentials(bodySHA1: digest)))
        #expect(OAuth1Verification.bodyMatches(authorization(nil), RequestCredentials()))
        #expect(OAuth1Verification.bodyMatches(authorization(nil), RequestCredentials(bodySHA1: [1, 2, 3])))
        // No body: the SHA-1 of no bytes.
        #expect(OAuth1Verification.bodyMatches(authorization("2jmj7l5rSw0yVb/vlWAYkK/YBwk="), RequestCredentials(bodySHA1: Array(Insecure.SHA1.hash(data: [UInt8]())))))
    }
}
