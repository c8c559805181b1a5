import Foundation
import HTTPTypes
import Hummingbird
import StackMobCore

/// Authentication of the admin API: a session cookie (`sm_admin`, for a browser console) or
/// `Authorization: Bearer <token>` (scripts). Writes authenticated by the cookie also need the
/// session's `X-CSRF-Token`, which a cross-site page cannot read. Nothing else opens it: StackMob
/// API keys and signatures mean nothing here. With no operator account the API is closed.
struct AdminAuthMiddleware: RouterMiddleware {
    typealias Context = StackMobRequestContext
    static let cookieName = "sm_admin"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    let operators: OperatorStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard try await operators.hasOperators() else { throw AdminError.closed }
        if request.uri.path == AdminSessionController.path && request.method == .post {
            return try await next(request, context)
        }
        var context = context
        if let token = Self.bearerToken(request) {
            guard let session = try await operators.session(token: token) else { throw AdminError.notSignedIn }
            context.operatorSession = session
        } else if let token = Self.cookieToken(request) {
            guard let session = try await operators.session(token: token) else { throw AdminError.notSignedIn }
            if ![.get, .head, .options].contains(request.method) {
                guard let sent = request.headers[Self.csrfHeader], SessionSecrets.hash(sent) == SessionSecrets.hash(session.csrfToken) else {
                    throw AdminError.csrfMismatch
                }
            }
            context.operatorSession = session
        } else {
            throw AdminError.notSignedIn
        }
        return try await next(request, context)
    }

    /// The session token of the request, whichever way it came.
    static func token(_ request: Request) -> String? {
        bearerToken(request) ?? cookieToken(request)
    }

    private static func bearerToken(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        let token = String(header.dropFirst("Bearer ".count)).trimmingSpaces()
        return token.isEmpty ? nil : token
    }

    private static func cookieToken(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingSpaces().split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookieName { return String(parts[1]) }
            }
        }
        return nil
    }
}
