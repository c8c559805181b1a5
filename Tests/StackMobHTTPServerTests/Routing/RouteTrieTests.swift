import HTTPTypes
import Hummingbird
import Logging
import NIOEmbedded
import Testing

@testable import StackMobHTTPServer

/// `RouteTrie` (the API's routes, StackMobHTTP's `APIRouter`) matches every path as Hummingbird's router does:
/// the same route, parameters and template, or none, path by path and method by method.
@Suite("API route matching")
struct RouteTrieTests {
    /// The API's routes (`buildRouter`), then shapes it does not use but the rules cover: a
    /// constant below a capture, a capture beside a constant that fails deeper down.
    static let routes: [(RouterPath, [HTTPRequest.Method])] = [
        ("/openapi.json", [.get]),
        ("/", [.head]),
        ("/listapi", [.get, .post]),
        ("/:schema", [.get, .head, .post, .delete]),
        ("/:schema/:id", [.get, .head, .put, .delete]),
        ("/:schema/:id/:field", [.post, .put]),
        ("/:schema/:id/:field/:values", [.delete]),
        ("/fixed/sub/:x", [.get]),
        ("/:schema/count", [.patch]),
        ("/:schema/:id/tail/deeper", [.options]),
    ]

    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options]

    /// Components joined every way a client might: doubled and trailing slashes, case, encoded
    /// and decoded characters, a combining mark after a slash.
    static var paths: [String] {
        let words = ["listapi", "openapi.json", "LISTAPI", "fixed", "sub", "count", "tail", "deeper", "user", "a", "é", "e\u{301}", "%2F", "x y"]
        var paths = ["", "/", "//", "///", "/\u{301}", "/a/\u{301}b", "/listapi/\u{301}", "listapi", "a/b"]
        for first in words {
            paths += ["/\(first)", "/\(first)/", "//\(first)"]
            for second in words.prefix(9) {
                paths += ["/\(first)/\(second)", "/\(first)//\(second)/"]
                for third in ["sub", "tail", "f"] {
                    paths += ["/\(first)/\(second)/\(third)", "/\(first)/\(second)/\(third)/deeper", "/\(first)/\(second)/\(third)/v/w"]
                }
            }
        }
        return paths
    }

    @Test("every path and method resolves to Hummingbird's route, parameters and template, or to none")
    func sameAsHummingbird() async throws {
        var trie = RouteTrie<[(HTTPRequest.Method, String)]>()
        let router = Router(context: BasicRequestContext.self)
        for (path, methods) in Self.routes {
            for method in methods {
                trie.add(path, make: { [] }) { $0.append((method, path.description)) }
                router.on(path, method: method) { _, context -> Response in
                    Response(status: .ok, headers: [Self.route: "\(context.endpointPath ?? "-")|\(Self.describe(context.parameters))"])
                }
            }
        }
        let responder = router.buildResponder()
        let channel = EmbeddedChannel()
        var compared = 0
        for path in Self.paths {
            for method in Self.methods {
                let context = BasicRequestContext(source: .init(channel: channel, logger: Logger(label: "test")))
                let request = Request(head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path), body: .init(buffer: .init()))
                let response = try await responder.respond(to: request, context: context)
                let expected = response.status == .ok ? response.headers[Self.route] ?? "no route" : "\(response.status.code)"
                var actual = "404"
                if let (routes, parameters) = trie.resolve(request.uri.path), let template = routes.first(where: { $0.0 == method })?.1 {
                    actual = "\(template)|\(Self.describe(parameters))"
                }
                #expect(actual == expected, "\(method) \(path)")
                compared += 1
            }
        }
        #expect(compared > 3_000)
    }

    @Test("a path's routes gather in one value; a node without one matches nothing")
    func values() {
        var trie = RouteTrie<Int>()
        trie.add("/a/:b", make: { 0 }) { $0 += 1 }
        trie.add("/a/:b", make: { 0 }) { $0 += 1 }
        #expect(trie.resolve("/a/x")?.value == 2)
        #expect(trie.resolve("/a/x")?.parameters.get("b") == "x")
        #expect(trie.resolve("/a") == nil, "a node without a value matches nothing")
    }

    static let route = HTTPField.Name("X-Route")!

    static func describe(_ parameters: Parameters) -> String {
        parameters.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }
}
