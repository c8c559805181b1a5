import Hummingbird
import NIOCore

/// `GET /openapi.json`: the OpenAPI 3.1 document of the API this server speaks (`openapi.json`
/// beside this file, embedded into the binary at build time). No schema can be named
/// `openapi.json` (schema names are lowercase letters, digits and underscores), so the path never
/// hides an app's data; it is public, like `HEAD /`, so that API tools can read it without keys.
struct OpenAPIController {
    static let path = "/openapi.json"
    /// Read once: the bytes never change while the process runs.
    static let document = ByteBuffer(bytes: PackageResources.openapi_json)

    func addRoutes(to router: RecordingRouter<APIRouterBuilder>) {
        router.route(.get, RouterPath(Self.path)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: JSONResponse.contentType, .cacheControl: "no-cache"],
                body: .init(byteBuffer: Self.document))
        }
    }
}
