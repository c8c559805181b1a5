import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StackMobCore

/// The console's only way into the domain: requests to the admin API's own responder, in
/// process, carrying the browser's `sm_admin` cookie and the form's CSRF token. The admin API's
/// authentication, CSRF check, validation and audit log therefore apply to every console action
/// exactly as they apply to a script (STYLE: "the console is a client of the admin API").
struct AdminClient: Sendable {
    let admin: RouterResponder<StackMobRequestContext>

    /// What the admin API answered.
    struct Reply: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let json: JSONValue?

        var isSuccess: Bool { (200..<300).contains(status.code) }
        /// The admin API's `{"error": …}` message, safe to show (it is what a script sees).
        var error: String { json?.objectValue?["error"]?.stringValue ?? "The admin API answered \(status.code)" }
        var object: JSONObject { json?.objectValue ?? [:] }
        var array: [JSONValue] { json?.arrayValue ?? [] }
    }

    /// Sends one admin API request as the browser's operator. `csrf` is the token the console's
    /// form carried; it goes in `X-CSRF-Token`, where the admin API checks it for every write.
    func send(
        _ method: HTTPRequest.Method, _ path: String, body: JSONValue? = nil, headers extra: HTTPFields = [:],
        csrf: String? = nil, from request: Request, context: StackMobRequestContext
    ) async throws -> Reply {
        let response: Response
        do {
            response = try await respond(method, path, body: body, headers: extra, csrf: csrf, from: request, context: context)
        } catch let error as HTTPResponseError {
            return Reply(status: error.status, headers: [:], json: nil)
        }
        let collector = BodyCollector()
        let body = response.body
        try await body.write(collector)
        let json = collector.buffer.readableBytes == 0 ? nil : try? JSONParser.parse(Array(collector.buffer.readableBytesView))
        return Reply(status: response.status, headers: response.headers, json: json)
    }

    /// The admin API's response as it is, its body not read: a download passes straight through
    /// to the browser, however large.
    func respond(
        _ method: HTTPRequest.Method, _ path: String, body: JSONValue? = nil, headers extra: HTTPFields = [:],
        csrf: String? = nil, from request: Request, context: StackMobRequestContext
    ) async throws -> Response {
        var fields = HTTPFields()
        // The cookie, and what a trusted proxy said of the browser's connection (the session
        // cookie's `Secure`, the sign-in limits' address).
        for name in [HTTPField.Name.cookie, .xForwardedFor, .forwarded, .xForwardedProto, .xRealIP] {
            for value in request.headers[values: name] { fields.append(HTTPField(name: name, value: value)) }
        }
        fields.append(contentsOf: extra)
        if let csrf { fields[AdminAuthMiddleware.csrfHeader] = csrf }
        var buffer = ByteBuffer()
        if let body {
            buffer = ByteBuffer(string: JSONWriter.string(body, omittingNulls: false))
            fields[.contentType] = "application/json"
        }
        let head = HTTPRequest(method: method, scheme: nil, authority: request.head.authority, path: path, headerFields: fields)
        var inner = context
        inner.operatorSession = nil
        inner.environment = nil
        inner.caller = .anonymous
        return try await admin.respond(to: Request(head: head, body: RequestBody(buffer: buffer)), context: inner)
    }
}

/// Gathers a response body written by the admin API's handlers. A class so that the collected
/// bytes survive `ResponseBody.write` consuming the writer; used by one task only.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
