import Foundation
import HTTPTypes
import StackMobCore

/// A logged-in session as the SDKs keep it: the three strings of the token response.
public struct MACSession: Sendable {
    public var accessToken: String
    public var macKey: String
    public var refreshToken: String

    public init(accessToken: String, macKey: String, refreshToken: String) {
        self.accessToken = accessToken
        self.macKey = macKey
        self.refreshToken = refreshToken
    }

    /// From a token response body; nil unless all three are strings.
    public init?(_ response: APIResponse) {
        guard let body = response.object, let access = body["access_token"]?.stringValue, let key = body["mac_key"]?.stringValue,
            let refresh = body["refresh_token"]?.stringValue
        else { return nil }
        self.init(accessToken: access, macKey: key, refreshToken: refresh)
    }
}

/// Signs like each SDK (PROTOCOL §3.2): they differ in the request-uri they sign for the same URL.
public enum MACSigner {
    public enum Style: Sendable, CaseIterable {
        /// The raw target as built (keys raw, values `encodeURIComponent`-ed): sign what is sent.
        case js
        /// The encoded path and query as sent.
        case java
        /// The query percent-decoded except escapes of `: / . ? & = ; + ! @ # $ ( ) ~` and space.
        case iOS
    }

    /// The request-uri the SDK signs for a request-target it sends.
    public static func requestURI(for target: String, style: Style) -> String {
        guard style == .iOS, let question = target.firstIndex(of: "?") else { return target }
        let kept = Set(":/.?&=;+!@#$()~ ".utf8)
        var output: [UInt8] = []
        let bytes = Array(target[target.index(after: question)...].utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16)
            {
                if kept.contains(value) { output += bytes[index...index + 2] } else { output.append(value) }
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(target[...question]) + String(decoding: output, as: UTF8.self)
    }

    /// The `Authorization` header value.
    public static func authorization(
        session: MACSession, method: String, target: String, style: Style, host: String = "localhost", port: Int = 443, ts: Int64,
        nonce: String = "n\(Int.random(in: 0...10_000))"
    ) -> String {
        let mac = MACSignature.mac(
            key: session.macKey, ts: ts, nonce: nonce, method: method, requestURI: requestURI(for: target, style: style), host: host,
            port: port)
        return MACSignature.header(id: session.accessToken, ts: ts, nonce: nonce, mac: mac)
    }
}

extension StackMobClient {
    /// A MAC-signed request, as the given SDK signs it, at the time `ts` (seconds).
    public func signed(
        _ method: HTTPRequest.Method, _ target: String, session: MACSession, style: MACSigner.Style = .js, ts: Int64,
        nonce: String? = nil, port: Int = 443, json: JSONValue? = nil, headers: [String: String] = [:]
    ) async throws -> APIResponse {
        var headers = headers
        headers["Authorization"] = MACSigner.authorization(
            session: session, method: method.rawValue, target: target, style: style, port: port, ts: ts,
            nonce: nonce ?? "n\(Int.random(in: 0...10_000))")
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
