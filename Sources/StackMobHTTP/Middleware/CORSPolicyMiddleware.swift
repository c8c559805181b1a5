import HTTPTypes
import Hummingbird
import StackMobCore

/// Cross-origin access for the JS SDK in a browser (PROTOCOL §2.10).
///
/// Sits before authentication: a pre-flight carries no credentials. The environment comes from
/// the `Accept` version on actual requests, and from the dummy header *name*
/// `x-stackmob-api-key-<publicKey>` in `Access-Control-Request-Headers` on pre-flights. An origin
/// that is not allowed gets no CORS headers at all, so the browser refuses the response.
struct CORSPolicyMiddleware: Sendable {
    typealias Context = StackMobRequestContext
    let backend: Backend

    static let allowedMethods = "GET, POST, PUT, DELETE, HEAD, OPTIONS"
    static let exposedHeaders = "Content-Range, Retry-After"
    private static let keyHeaderPrefix = "x-stackmob-api-key-"

    /// Only requests that say where they come from (`Origin`) are cross-origin.
    static func applies(to request: Request) -> Bool {
        request.headers.value(of: .origin) != nil
    }

    /// Called by `FrontMiddleware`, on the caller's executor.
    nonisolated(nonsending) func respond(
        to request: Request, context: Context, next: nonisolated(nonsending) (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let origin = request.headers.value(of: .origin) else { return try await next(request, context) }
        if request.method == .options, request.headers.value(of: .accessControlRequestMethod) != nil {
            return preflight(request, origin: origin, context: context)
        }
        let kind = EnvironmentKind(apiVersion: APIVersion.parse(accept: request.headers.value(of: .accept)))
        var response = try await next(request, context)
        if Self.allows(origin, settings: backend.environment(kind).settings) {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
            response.headers.append(HTTPField(name: .vary, value: "Origin"))
        }
        return response
    }

    private func preflight(_ request: Request, origin: String, context: Context) -> Response {
        let requested = request.headers.value(of: .accessControlRequestHeaders) ?? ""
        guard let environment = environment(announcedIn: requested), Self.allows(origin, settings: environment.settings) else {
            context.logger.info("CORS pre-flight refused", metadata: ["sm.origin": "\(origin)"])
            return Response(status: .forbidden, headers: [.contentLength: "0", .vary: "Origin"])
        }
        var headers: HTTPFields = [
            .accessControlAllowOrigin: origin,
            .accessControlAllowMethods: Self.allowedMethods,
            .accessControlMaxAge: String(environment.settings.corsMaxAgeSeconds),
            .accessControlExposeHeaders: Self.exposedHeaders,
            .vary: "Origin",
            .contentLength: "0",
        ]
        if !requested.isEmpty { headers[.accessControlAllowHeaders] = requested }
        return Response(status: .ok, headers: headers)
    }

    /// The environment whose public key appears as `x-stackmob-api-key-<key>` in the requested
    /// header names; nil when none does (the app cannot be known, so nothing is allowed).
    private func environment(announcedIn requestedHeaders: String) -> AppEnvironment? {
        let names = requestedHeaders.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
        for name in names where name.hasPrefix(Self.keyHeaderPrefix) {
            let key = name.dropFirst(Self.keyHeaderPrefix.count)
            for kind in EnvironmentKind.allCases where backend.environment(kind).keys.publicKey.lowercased() == key {
                return backend.environment(kind)
            }
        }
        return nil
    }

    static func allows(_ origin: String, settings: EnvironmentSettings) -> Bool {
        settings.corsAllowedOrigins.contains { $0 == "*" || $0.lowercased() == origin.lowercased() }
    }
}
