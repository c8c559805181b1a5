import HTTPTypes
import Hummingbird

/// How a console handler stops early: a redirect (to sign-in when there is no session) or a
/// refusal shown as a small page. Mapped to a response here, never left to the generic 500.
enum ConsoleError: HTTPResponseError {
    case redirect(String)
    /// A form without the session's CSRF token, or one the admin API refused as such.
    case forbidden(String)

    var status: HTTPResponse.Status {
        switch self {
        case .redirect: .seeOther
        case .forbidden: .forbidden
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        switch self {
        case .redirect(let location):
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
        case .forbidden(let message):
            return ConsolePages.shared.response(
                "message", ["title": "Refused", "message": message], session: nil, status: .forbidden)
        }
    }
}
