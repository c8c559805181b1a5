import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A streamed list holds the primary keys of the objects still to come until it is written, and
/// they count against its client's share of the body budgets (`BodyBudget.answering`,
/// docs/operations.md, "Limits"). Tagged `.timing`: it stores megabytes of keys and relies on the
/// kernel's socket buffers filling, which a suite running beside it slows past the test client's
/// timeouts (docs/testing.md, "Timing-sensitive suites").
@Suite("A streamed list's keys count against its client's share", .tags(.timing))
struct ListKeysBudgetTests {
    /// Bodies and answers of up to 2 MiB, one client's share 4 MiB, 16 in all.
    static func keyBudgets(_ configuration: inout StackMobConfiguration) {
        configuration.maxBodyBytes = 2 * BodyBudgetTests.megabyte
        configuration.maxBodyBytesPerClient = 4 * BodyBudgetTests.megabyte
        configuration.maxBodyBytesInFlight = 16 * BodyBudgetTests.megabyte
    }

    @Test(
        "the keys of a long list's rest, held until it is written, count against the client's share: a client reading its lists slowly cannot make the server hold many lists' keys, and its writes go on",
        BodyBudgetTests.answersTaken)
    func listKeys() async throws {
        try await TestServer.run(configure: Self.keyBudgets) { client in
            // 6,000 objects whose ids are 1,200 bytes: keys of about 7.4 MB, and a list of about
            // 7.5 MB, more than the kernel takes from a socket whose client reads nothing, written
            // in parts of a thousand objects (1.3 MB).
            let padding = String(repeating: "k", count: 1_194)
            for start in stride(from: 0, to: 6_000, by: 500) {
                let objects = (start..<start + 500).map { JSONValue.object(["longkey_id": .string(String(format: "%06d", $0) + padding)]) }
                let created = try await client.post("/longkey", .array(objects))
                #expect(created.status == .ok || created.status == .created, "\(created.text.prefix(300))")
            }
            #expect(try await client.post("/big", ["big_id": "b0", "text": .string(String(repeating: "x", count: 1_500_000))]).status == .created)
            // A reads the list and takes almost nothing of it: its keys hold A's share (4 MiB)
            // until the list ends. Without them, A held the part being written, and had room for
            // an answer of 1.5 MB, and for more lists.
            var open: [Int32] = []
            defer { for socket in open { Glibc.close(socket) } }
            open.append(try await BodyBudgetTests.unread("/longkey", from: "203.0.113.50", port: client.port))
            for path in ["/big/b0", "/longkey"] {
                let refused = try await BodyBudgetTests.read(path, from: "203.0.113.50", port: client.port)
                #expect(refused.status == 503 && refused.headers["retry-after"] == "1", "\(path): \(refused.status) \(refused.headers)")
                #expect(refused.body.contains("Too many large answers to this client at once"), "\(path): \(refused.body.prefix(200))")
            }
            // The keys are not an answer's text: A's writes go on.
            let write = try await RawConnection.connect(port: client.port)
            try await write.send(HTTP1ConnectionTests.request("POST", "/small", headers: ["X-Forwarded-For: 203.0.113.50"], body: #"{"text":"t"}"#))
            #expect(try await write.response()?.status == 201)
            await write.close()
            #expect(try await BodyBudgetTests.read("/big/b0", from: "203.0.113.51", port: client.port).status == 200)
            // A closes the list's connection: its keys are let go, and the room comes back.
            for socket in open { Glibc.close(socket) }
            open = []
            #expect(try await eventually { try await BodyBudgetTests.read("/big/b0", from: "203.0.113.50", port: client.port).status == 200 })
        }
    }

}
