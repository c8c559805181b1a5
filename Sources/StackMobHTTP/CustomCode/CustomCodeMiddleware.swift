import HTTPTypes
import Hummingbird
import NIOCore
import StackMobCore

/// Custom code (PROTOCOL §10, §2.3 step 5): a single path segment naming a configured method,
/// in any case, goes to the method's webhook with every verb; ACLs do not apply. Runs after
/// authentication, so the webhook gets the verified user.
///
/// A single segment that is not a method goes on to the schema routes, where a name that is no
/// existing schema answers 404 (§10.4) to anything but a create, after the schema's permission
/// level had its say (§12.2).
struct CustomCodeMiddleware: Sendable {
    typealias Context = StackMobRequestContext
    let gateway: any CustomCodeGateway
    let timeoutSeconds: Int
    let maxBodyBytes: Int
    /// Where failed calls are noted for the admin API.
    var failures: CustomCodeFailureLog? = nil

    /// Response headers that belong to the webhook's connection, not to the client's.
    private static let hopByHop: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "content-length", "te", "trailer", "upgrade", "proxy-authenticate", "date", "server",
    ]

    /// A configured method, in its environment.
    typealias Claim = (method: CustomCodeMethod, environment: AppEnvironment)

    /// Nil for a request that is not this middleware's. `segments` are the path's.
    func claim(_ request: Request, context: Context, segments: [Substring]) -> Claim? {
        guard segments.count == 1, let environment = context.environment, let name = try? PathSegment.decode(segments[0]),
            let method = environment.settings.customCodeMethod(named: name)
        else { return nil }
        return (method, environment)
    }

    func respond(to claim: Claim, _ request: Request, context: Context) async throws -> Response {
        let (method, environment) = claim
        let body = try await RequestBodyReader.bytes(request, limit: maxBodyBytes)
        var headers: [String: String] = [:]
        for field in request.headers where CustomCodeCall.forwards(header: field.name.canonicalName) {
            headers[field.name.canonicalName] = field.value
        }
        let call = CustomCodeCall(
            method: method.name, verb: request.method.rawValue,
            parameters: try QueryString.parameters(request.uri.query).map { (name: $0.key, value: $0.value) },
            body: String(decoding: body.readableBytesView, as: UTF8.self), headers: headers, caller: context.caller,
            environment: environment.kind, apiVersion: APIVersion.parse(accept: request.headers[.accept]))
        context.logger.info("Custom code call", metadata: ["sm.method": "\(method.name)", "sm.verb": "\(call.verb)"])
        let reply: CustomCodeReply
        do {
            reply = try await gateway.call(call, url: method.url, timeoutSeconds: timeoutSeconds, maxBodyBytes: maxBodyBytes)
        } catch let error as CustomCodeError {
            await failures?.record(environment: environment.kind, method: method.name, reason: error.failureReason)
            throw error
        }
        if reply.status >= 500 {
            await failures?.record(environment: environment.kind, method: method.name, reason: "status \(reply.status)")
        }
        var responseHeaders = HTTPFields()
        for (name, value) in reply.headers where !Self.hopByHop.contains(name.lowercased()) {
            if let fieldName = HTTPField.Name(name) { responseHeaders.append(HTTPField(name: fieldName, value: value)) }
        }
        if responseHeaders[.contentType] == nil { responseHeaders[.contentType] = JSONResponse.contentType }
        responseHeaders[.contentLength] = String(reply.body.count)
        return Response(status: HTTPResponse.Status(code: reply.status), headers: responseHeaders, body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
    }
}
