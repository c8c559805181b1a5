import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// `logging.format: json` over the real binary (issue 17).
@Suite("JSON log format")
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
            for line in lines {
                let object = try #require((try? JSONParser.parse(String(line)))?.objectValue, "not a JSON line: \(line)")
                #expect(object["ts"]?.stringValue != nil && object["level"]?.stringValue != nil && object["message"]?.stringValue != nil)
            }
            let keys = try #require(lines.compactMap { (try? JSONParser.parse(String($0)))?.objectValue }.first { $0["message"] == "Environment ready" })
            #expect(keys["sm.environment"] != nil, "metadata keys keep their dotted names")
        }
    }
}
