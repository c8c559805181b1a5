import HTTPTypes
import NIOHTTP1
import NIOHTTPTypesHTTP1

extension HTTPRequest {
    /// swift-http-types' request for NIO's head, as `HTTPRequest(_:secure:splitCookie:)` makes it
    /// for a plain-HTTP server, without a URL parse of a path that starts with `/`, and with the
    /// header fields and authority of `HTTPFields.converting(_:)`.
    ///
    /// That initialiser turns an absolute-form target (`http://host/path`) into its path and
    /// query by parsing every target with Foundation's `URLComponents`: a fifth of a request's
    /// conversion, and more for a long query. A target that starts with `/` has no scheme, for
    /// which it keeps the target as it is; so does this.
    static func plainHTTP(_ head: HTTPRequestHead) throws -> HTTPRequest {
        guard head.uri.utf8.first == UInt8(ascii: "/") else { return try HTTPRequest(head, secure: false, splitCookie: false) }
        let (fields, host) = HTTPFields.converting(head.headers)
        return HTTPRequest(method: try Method(head.method), scheme: "http", authority: host, path: head.uri, headerFields: fields)
    }
}
