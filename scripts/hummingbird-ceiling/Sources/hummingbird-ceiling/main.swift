import Hummingbird

// A bare Hummingbird server, the `hummingbird` side of scripts/bench.py: what the framework
// alone does with `HEAD /` on this machine, to tell its cost from ours (docs/benchmarks.md). No
// middleware, no request log, no deadline: `hummingbird-ceiling [port]`.
let port = Int(CommandLine.arguments.dropFirst().first ?? "8099") ?? 8099
let router = Router()
router.head("/") { _, _ in HTTPResponse.Status.ok }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
