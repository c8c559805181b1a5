import Foundation
import HTTPTypes
import StackMobCore

extension StackMobClient {
    /// A MAC-signed request, as the given SDK signs it, at the time `ts` (seconds).
    public func signed(
        _ method: HTTPRequest.Method, _ target: String, session: MACSession, style: MACSigner.Style = .js, ts: Int64,
        nonce: String? = nil, port: Int = 443, json: JSONValue? = nil, headers: [String: String] = [:]
    ) async throws -> APIResponse {
        var headers = headers
        headers["Authorization"] = MACSigner.authorization(
            session: session, method: method.rawValue, target: target, style: style, port: port, ts: ts,
            nonce: nonce ?? MACSigner.freshNonce())
        return try await request(method, target, json: json, headers: headers)
    }

    /// Posts a form body like the SDKs' token requests.
    public func postForm(_ path: String, _ fields: [(String, String)], headers: [String: String] = [:]) async throws -> APIResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { key, value in
            "\(key.addingPercentEncoding(withAllowedCharacters: allowed)!)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
        var headers = headers
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        return try await request(.post, path, rawBody: body, headers: headers)
    }

    /// Logs in through `accessToken`; throws unless the server answered 200 with the tokens.
    public func login(_ fields: [(String, String)], schema: String = "user") async throws -> MACSession {
        let response = try await postForm("/\(schema)/accessToken", fields + [("token_type", "mac"), ("mac_algorithm", "hmac-sha-1")])
        guard response.status == .ok, let session = MACSession(response) else {
            throw TestFailure("login answered \(response.status.code): \(response.text)")
        }
        return session
    }
}
