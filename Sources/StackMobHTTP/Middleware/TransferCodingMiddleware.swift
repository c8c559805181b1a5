import Hummingbird

/// Refuses a request body in a transfer coding other than `chunked` with 501 (RFC 9112 §6.1),
/// before anything reads it: NIO's parser cannot decode `gzip` or an unknown coding, and would
/// fail the body read as a malformed request instead.
struct TransferCodingMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try Self.check(request)
        return try await next(request, context)
    }

    static func check(_ request: Request) throws {
        guard let header = request.headers[.transferEncoding] else { return }
        let codings = header.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
        if let unsupported = codings.first(where: { $0 != "chunked" }) {
            throw RequestError.unsupportedTransferCoding(unsupported)
        }
    }
}
