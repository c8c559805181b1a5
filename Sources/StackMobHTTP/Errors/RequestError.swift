/// Requests the HTTP layer refuses before they reach the domain; messages are safe to show.
public enum RequestError: Error, Sendable, Equatable {
    case malformedJSON(String)
    case emptyBody
    case bodyTooLarge(limit: Int)
    case invalidPercentEncoding(String)
    case methodOverrideNotAllowed(from: String, to: String)
    case routeNotFound(method: String, path: String)

    var message: String {
        switch self {
        case .malformedJSON(let detail): "Malformed JSON in the request body: \(detail)"
        case .emptyBody: "The request body is empty: send a JSON object"
        case .bodyTooLarge(let limit): "The request body is larger than the limit of \(limit) bytes"
        case .invalidPercentEncoding(let segment): "Invalid percent-encoding in '\(segment)'"
        case .methodOverrideNotAllowed(let from, let to):
            "X-HTTP-Method-Override cannot turn \(from) into \(to): only GET into DELETE or HEAD, and POST into PUT"
        case .routeNotFound(let method, let path): "No such endpoint: \(method) \(path)"
        }
    }
}
