import Hummingbird

/// Refuses a request whose target holds U+0000, as `%00` or as a raw byte, with 400 before any
/// route reads it: every path segment (ids, field names) and every query key and value is
/// decoded from the target, and neither engine can look such a string up (SQLite's text binding
/// ends at the NUL, so `/todo/a%00b` acted on `a`; PostgreSQL refuses it, a 500). Form bodies
/// are refused in `FormBody`, push bodies in `PushRequestBody`; writes in the datastore.
///
/// One pass over the target's bytes, nothing decoded or allocated: it runs for every request,
/// `HEAD /` included.
struct NULMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try Self.check(request)
        return try await next(request, context)
    }

    static func check(_ request: Request) throws(RequestError) {
        if holdsNUL(request.uri.string) { throw .containsNUL }
    }

    /// Whether `target` holds `%00` or a NUL byte.
    static func holdsNUL(_ target: String) -> Bool {
        target.utf8.withContiguousStorageIfAvailable(holdsNUL) ?? holdsNUL(Array(target.utf8))
    }

    private static func holdsNUL(_ bytes: some RandomAccessCollection<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            if byte == 0 { return true }
            guard byte == UInt8(ascii: "%"), index != bytes.endIndex, bytes[index] == UInt8(ascii: "0") else { continue }
            let next = bytes.index(after: index)
            if next != bytes.endIndex, bytes[next] == UInt8(ascii: "0") { return true }
        }
        return false
    }
}
