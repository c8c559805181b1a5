import StackMobCore

/// Requests the HTTP layer refuses before they reach the domain; messages are safe to show.
public enum RequestError: Error, Sendable, Equatable {
    case malformedJSON(String)
    case emptyBody
    case bodyTooLarge(limit: Int)
    case invalidPercentEncoding(String)
    case methodOverrideNotAllowed(from: String, to: String)
    case routeNotFound(method: String, path: String)
    /// The connection failed or closed before the whole body arrived: the client's doing, and
    /// nobody is left to read the answer.
    case connectionLost
    /// A `Transfer-Encoding` other than `chunked` (RFC 9112 §6.1: 501).
    case unsupportedTransferCoding(String)
    /// U+0000 in the request target (`%00`) or in a form or push body: no id, field name or
    /// value can hold it, so no lookup could find it (`NULMiddleware`).
    case containsNUL
    /// An expanded answer longer than `limits.max_expanded_response_bytes`.
    case responseTooLarge(limit: Int)

    var message: String {
        switch self {
        case .malformedJSON(let detail): "Malformed JSON in the request body: \(detail)"
        case .emptyBody: "The request body is empty: send a JSON object"
        case .bodyTooLarge(let limit): "The request body is larger than the limit of \(limit) bytes"
        case .invalidPercentEncoding(let segment): "Invalid percent-encoding in '\(segment)'"
        case .methodOverrideNotAllowed(let from, let to):
            "X-HTTP-Method-Override cannot turn \(from) into \(to): only GET into DELETE or HEAD, and POST into PUT"
        case .routeNotFound(let method, let path): "No such endpoint: \(method) \(path)"
        case .connectionLost: "The connection closed before the request body was complete"
        case .unsupportedTransferCoding(let coding):
            "Transfer-Encoding '\(coding)' is not supported: send the body with Content-Length, or chunked"
        case .containsNUL: "The request holds U+0000 (%00), which no id, field or value may contain"
        case .responseTooLarge(let limit):
            // The same refusal as the datastore's, when the related objects it reads pass the limit.
            DatastoreError.expansionTooLarge(limit: limit).message
        }
    }
}
