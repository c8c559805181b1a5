import Foundation
import Logging
import Synchronization
@testable import StackMobHTTP
import StackMobCore
import StackMobTestSupport
import Testing

/// `logging.format` over the real binary (docs/operations.md, "Monitoring"): JSON lines, and the
/// default text lines.
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

    @Test("a login holding a newline, a carriage return and an escape sequence stays on its one text line, escaped")
    func forgedLine() async throws {
        try await TestServer.withDataDirectory { directory in
            let (server, port) = try await OperationsHarness.serve(["--data-dir", "\(directory)/data"], in: directory)
            let forged = "1999-01-01T00:00:00+0000 notice stackmob: sm.operator=root [StackMobHTTP] Operator signed in"
            let login = "eve\n\(forged)\r\t\u{1B}[2J"
            try await OperationsHarness.withClient(port: port) { client in
                #expect(try await client.post("/user", ["username": .string(login), "password": "pw"]).status == .created)
                _ = try await client.login([("username", login), ("password", "pw")])
            }
            #expect(try await server.waitForLog(containing: "User logged in"), "\(server.log)")
            #expect(await server.terminate() == 0)
            let lines = server.log.split(separator: "\n")
            #expect(!lines.contains { $0.hasPrefix("1999-01-01") }, "\(server.log)")
            let loggedIn = try #require(lines.first { $0.contains("User logged in") })
            #expect(loggedIn.contains("sm.user=eve\\n\(forged)\\r\\t\\u{1B}[2J"), "\(loggedIn)")
            #expect(!server.log.utf8.contains { $0 == 0x0D || $0 == 0x09 || $0 == 0x1B }, "\(server.log)")
        }
    }

    @Test("control characters in messages, metadata keys and values and the request line are escaped; other text is kept")
    func controlCharacters() async throws {
        #expect(TextLogHandler.escapingControls("a\nb\rc\td\u{1B}[0m\u{7F}\u{0}\u{85}é©\\n") == "a\\nb\\rc\\td\\u{1B}[0m\\u{7F}\\u{0}\\u{85}é©\\n")
        // Without any, the string itself comes back, not a copy (every request line passes here).
        let clean = "GET /user/alice?x=%0A sm.user=alice é"
        let escaped = TextLogHandler.escapingControls(clean)
        #expect(escaped == clean)
        #expect(clean.utf8.withContiguousStorageIfAvailable { $0.baseAddress } == escaped.utf8.withContiguousStorageIfAvailable { $0.baseAddress })
        let lines = try await Self.captured { output in
            var logger = Logger(label: "stackmob") { _ in TextLogHandler(label: "stackmob", timestamps: .local(), output: output) }
            logger[metadataKey: "sm.user"] = "eve\nforged"
            logger.info("one\ntwo", metadata: ["sm.k\r": "v\u{1B}"])
            logger.logRequest(RequestLogLine(method: "GET", path: "/user/eve\nforged", status: 200, duration: .zero))
        }
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasSuffix(#"sm.k\r=v\u{1B} sm.user=eve\nforged [StackMobHTTPTests] one\ntwo"#) == true, "\(lines)")
        #expect(lines.last?.contains(#"sm.path=/user/eve\nforged sm.status=200"#) == true, "\(lines)")
        #expect(lines.last?.contains(#"sm.user=eve\nforged"#) == true, "\(lines)")
    }

    @Test("a line's own metadata wins over the logger's, the pairs sorted by key")
    func metadataMerge() {
        let pretty = TextLogHandler.prettify(["sm.b": "logger", "hb.request.id": "7"], ["sm.b": "line", "sm.a": "x y"])
        #expect(pretty == "hb.request.id=7 sm.a=x y sm.b=line")
        #expect(TextLogHandler.prettify([:], [:]) == "")
        // Past 16 pairs the handler sorts them another way: the same order.
        let many = Dictionary(uniqueKeysWithValues: (0..<20).map { ("k\(String($0, radix: 2))", Logger.MetadataValue.string("\($0)")) })
        let sortedKeys = many.keys.sorted()
        #expect(TextLogHandler.prettify(many, [:]) == sortedKeys.map { "\($0)=\(many[$0]!)" }.joined(separator: " "))
    }

    @Test("the text handler's request id, kept apart from its dictionary, reads and writes as any other metadata")
    func requestIDMetadata() {
        var handler = TextLogHandler(label: "stackmob", timestamps: .local(), output: LogOutput(descriptor: -1))
        handler[metadataKey: "hb.request.id"] = "7"
        handler[metadataKey: "sm.listener"] = "push"
        #expect(handler.metadata == ["hb.request.id": "7", "sm.listener": "push"])
        #expect(handler[metadataKey: "hb.request.id"] == "7" && handler[metadataKey: "sm.listener"] == "push")
        handler.metadata = ["hb.request.id": "8"]
        #expect(handler.metadata == ["hb.request.id": "8"] && handler[metadataKey: "sm.listener"] == nil)
        handler[metadataKey: "hb.request.id"] = nil
        #expect(handler.metadata.isEmpty)
        #expect(TextLogHandler.requestIDKey == "hb.request.id", "the key Hummingbird's own responder used")
    }

    @Test("the request line each handler writes itself is, byte for byte, the line swift-log's path writes")
    func requestLineFastPath() async throws {
        let line = RequestLogLine(method: "GET", path: "/memo/1", status: 200, duration: .microseconds(1_234))
        // Each format, and where its time is: the two lines may be a second apart.
        let handlers: [(String, (LogOutput) -> any RequestLineLogging, Regex<Substring>)] = [
            ("text", { TextLogHandler(label: "stackmob", timestamps: .local(), output: $0) }, /^\S+[ ]/),
            ("json", { JSONLogHandler(label: "stackmob", timestamps: .utc(), output: $0) }, /"ts":"[^"]*"/),
        ]
        for (format, make, time) in handlers {
            let lines = try await Self.captured { output in
                var logger = Logger(label: "stackmob") { _ in make(output) }
                logger[metadataKey: "hb.request.id"] = .stringConvertible(42)
                // A logger key the line also has: the line's value wins on both paths.
                logger[metadataKey: "sm.status"] = "logger's"
                // Logger keys that sort between the line's keys, and after them all.
                logger[metadataKey: "sm.listener"] = "push"
                logger[metadataKey: "sm.zone"] = "z"
                logger.log(level: .info, RequestLogLine.message, metadata: line.metadata, source: RequestLogLine.source)
                logger.logRequest(line)
                logger.logLevel = .notice
                var built = 0
                logger.logRequest({ built += 1; return line }())
                #expect(built == 0, "below its level the line is not even built")
            }
            #expect(lines.count == 2, "\(format): \(lines)")
            let untimed = lines.map { $0.replacing(time, with: "") }
            #expect(untimed.count == 2 && untimed[0] == untimed[1] && (lines[0].count - 40..<lines[0].count).contains(untimed[0].count), "\(format): \(lines)")
            #expect(untimed.allSatisfy { $0.contains("200") && $0.contains("hb.request.id") && !$0.contains("logger's") }, "\(format): \(lines)")
            #expect(untimed.allSatisfy { $0.contains("sm.listener") && $0.contains("sm.zone") }, "\(format): \(lines)")
        }
    }

    @Test("a handler without its own request line gets the line through log(event:), from StackMobHTTP")
    func requestLineFallback() {
        let events = RecordedEvents()
        let logger = Logger(label: "stackmob") { _ in RecordingHandler(events: events) }
        logger.logRequest(RequestLogLine(method: "HEAD", path: "/", status: 200, duration: .zero))
        let recorded = events.all.withLock { $0 }
        #expect(recorded.count == 1)
        #expect(recorded.first?.source == "StackMobHTTP")
        #expect(recorded.first?.metadata == ["sm.duration_ms": "0.0", "sm.method": "HEAD", "sm.path": "/", "sm.status": "200"])
    }

    /// The lines `body` logs through a `LogOutput` on a pipe.
    private static func captured(_ body: (LogOutput) -> Void) async throws -> [String] {
        let pipe = Pipe()
        let output = LogOutput(descriptor: pipe.fileHandleForWriting.fileDescriptor)
        body(output)
        output.flush()
        try pipe.fileHandleForWriting.close()
        let data = try pipe.fileHandleForReading.readToEnd() ?? Data()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

private final class RecordedEvents: Sendable {
    let all = Mutex<[(metadata: Logger.Metadata, source: String)]>([])
}

/// Records each event's metadata and source: a handler that is not `RequestLineLogging`.
private struct RecordingHandler: LogHandler {
    let events: RecordedEvents
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        events.all.withLock { $0.append((event.metadata ?? [:], event.source)) }
    }
}
