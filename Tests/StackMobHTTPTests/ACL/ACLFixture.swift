import Foundation
import HTTPTypes
import StackMobCore
import StackMobTestSupport

/// Who sends a request in the access tests.
enum ACLCaller: Sendable, Hashable, CustomStringConvertible {
    case anonymous
    /// A logged-in user (MAC-signed requests).
    case user(String)
    case privateKey

    var description: String {
        switch self {
        case .anonymous: "anonymous"
        case .user(let name): name
        case .privateKey: "private key"
        }
    }
}

/// A running server with logged-in users, sending requests as any `ACLCaller`.
struct ACLFixture: Sendable {
    let client: StackMobClient
    let clock: ManualClock
    let sessions: [String: MACSession]

    /// Creates the users (with the private key, so that the user schema's own permissions do not
    /// get in the way) and logs each in.
    static func make(_ client: StackMobClient, clock: ManualClock, users: [String: JSONObject]) async throws -> ACLFixture {
        var sessions: [String: MACSession] = [:]
        let fixture = ACLFixture(client: client, clock: clock, sessions: [:])
        for (name, fields) in users.sorted(by: { $0.key < $1.key }) {
            var body = fields
            body["username"] = .string(name)
            body["password"] = .string("pw-\(name)")
            let created = try await fixture.send(.privateKey, .post, "/user", json: .object(body))
            guard created.status == .created else { throw TestFailure("creating \(name): \(created.status.code) \(created.text)") }
            sessions[name] = try await client.login([("username", name), ("password", "pw-\(name)")])
        }
        return ACLFixture(client: client, clock: clock, sessions: sessions)
    }

    func send(
        _ caller: ACLCaller, _ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, headers: [String: String] = [:]
    ) async throws -> APIResponse {
        let ts = clock.nowMilliseconds() / 1000
        switch caller {
        case .anonymous:
            return try await client.request(method, path, json: json, headers: headers)
        case .user(let name):
            guard let session = sessions[name] else { throw TestFailure("no session for \(name)") }
            return try await client.signed(method, path, session: session, ts: ts, nonce: UUID().uuidString, json: json, headers: headers)
        case .privateKey:
            return try await client.oauth1(method, path, shape: .java, json: json, timestamp: ts, headers: headers)
        }
    }
}
