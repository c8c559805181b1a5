import Foundation
import Logging
@testable import StackMobHTTP
import StackMobCore
import StackMobTestSupport
import Testing

/// `logging.format` over the real binary (issue 17): JSON lines, and the default text lines.
@Suite("Log formats")
struct LogFormatTests {
    @Test("with logging.format json every line the server prints is one JSON object with ts, level and message")
    func jsonLines() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", "\(directory)/data"], directory: directory,
                environment: OperationsHarness.environment.merging(["STACKMOB_LOGGING__FORMAT": "json"]) { _, new in new })
            #expect(try await server.waitForLog(containing: "listening on"), "\(server.log)")
            #expect(await server.terminate() == 0)
            let lines = server.log.split(separator: "\n").filter { !$0.isEmpty }
            #expect(lines.count > 3)
            // Metadata values may hold spaces (a PostgreSQL URL and its schema): only the request
            // line below is checked key by key.
            for line in lines {
                let object = try #require((try? JSONParser.parse(String(line)))?.objectValue, "not a JSON line: \(line)")
                #expect(object["ts"]?.stringValue != nil && object["level"]?.stringValue != nil && object["message"]?.stringValue != nil)
            }
            let keys = try #require(lines.compactMap { (try? JSONParser.parse(String($0)))?.objectValue }.first { $0["message"] == "Environment ready" })
            #expect(keys["sm.environment"] != nil, "metadata keys keep their dotted names")
        }
    }

    @Test("by default every line is swift-log's text line: local time, level, label, sorted key=value pairs, [module], message")
    func textLines() async throws {
        try await TestServer.withDataDirectory { directory in
            let (server, port) = try await OperationsHarness.serve(["--data-dir", "\(directory)/data"], in: directory)
            let status = try await OperationsHarness.withClient(port: port) { client in try await client.post("/memo", ["title": "logged"]).status }
            #expect(status == .created)
            #expect(try await server.waitForLog(containing: "sm.path=/memo"), "\(server.log)")
            #expect(await server.terminate() == 0)
            let lines = server.log.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
            #expect(lines.count > 3)
            let shape = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} (trace|debug|info|notice|warning|error|critical) stackmob:( [^ =]+=.*)? \[[A-Za-z]+\] .+$/
            // Metadata values may hold spaces (a PostgreSQL URL and its schema): only the request
            // line below is checked key by key.
            for line in lines {
                #expect(line.wholeMatch(of: shape) != nil, "not a text log line: \(line)")
            }
            let request = try #require(lines.first { $0.contains("sm.path=/memo") })
            // The request id Hummingbird tags the logger with, then the request's own keys, in order.
            #expect(request.wholeMatch(of: /.* info stackmob: hb\.request\.id=\S+ sm\.duration_ms=[0-9.e-]+ sm\.method=POST sm\.path=\/memo sm\.status=201 \[StackMobHTTP\] Request/) != nil, "\(request)")
        }
    }

    @Test("a line's own metadata wins over the logger's, the pairs sorted by key")
    func metadataMerge() {
        let pretty = TextLogHandler.prettify(["sm.b": "logger", "hb.request.id": "7"], ["sm.b": "line", "sm.a": "x y"])
        #expect(pretty == "hb.request.id=7 sm.a=x y sm.b=line")
        #expect(TextLogHandler.prettify([:], [:]) == "")
    }
}
