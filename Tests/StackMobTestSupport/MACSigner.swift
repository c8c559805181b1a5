import Foundation
import HTTPTypes
import StackMobCore

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

    /// A nonce in the SDKs' form (`n` and a number), from a far wider range than their 0…10000.
    /// The same request signed twice in one second with the same nonce is a replay, by the
    /// protocol's rule; with the SDKs' range, a test's burst of 25 identical POSTs in one second
    /// drew the same nonce twice about once in 30 runs.
    public static func freshNonce() -> String { "n\(Int.random(in: 0...Int.max))" }

    /// The `Authorization` header value.
    public static func authorization(
        session: MACSession, method: String, target: String, style: Style, host: String = "localhost", port: Int = 443, ts: Int64,
        nonce: String = freshNonce()
    ) -> String {
        let mac = MACSignature.mac(
            key: session.macKey, ts: ts, nonce: nonce, method: method, requestURI: requestURI(for: target, style: style), host: host,
            port: port)
        return MACSignature.header(id: session.accessToken, ts: ts, nonce: nonce, mac: mac)
    }
}
