import Crypto
import Hummingbird
import NIOCore

/// The body of an OAuth 1.0 request that signs it with `oauth_body_hash` (the OAuth Request Body
/// Hash extension; `OAuth1Verification.bodyMatches` compares). The body is read before
/// authentication only for such a request, which the SDKs of PROTOCOL §3.3 never send.
enum SignedBody {
    /// A body up to this size is hashed where it was read, on the request's event loop: a SHA-1
    /// of 64 KiB takes well under a millisecond. A larger one (up to the body limit) is hashed on
    /// Swift's shared pool, so that the loop's other connections do not wait for it.
    static let inlineHashLimit = 64 * 1024

    /// The SHA-1 of the request's body when `authorization` may name `oauth_body_hash`, nil
    /// otherwise. The body is read as every route reads it (`RequestBodyReader`: `limit`, then
    /// 413) and put back whole, so that the route reads the very bytes that were hashed.
    static func sha1(of request: inout Request, authorization: String, limit: Int) async throws -> [UInt8]? {
        // A cheap test, a superset of the parsed header's parameters (their names are not
        // percent-decoded): a header that only mentions it costs a read of the body, nothing more.
        guard authorization.contains("oauth_body_hash") else { return nil }
        let body = try await RequestBodyReader.bytes(request, limit: limit)
        request.body = RequestBody(buffer: body)
        guard body.readableBytes > inlineHashLimit else { return digest(body) }
        return await Task.detached { digest(body) }.value
    }

    private static func digest(_ body: ByteBuffer) -> [UInt8] {
        var hasher = Insecure.SHA1()
        body.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize())
    }
}
