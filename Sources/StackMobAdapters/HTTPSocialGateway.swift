import AsyncHTTPClient
import Foundation
import NIOCore
import StackMobCore

/// Facebook's Graph API and Twitter's REST API, called with the process's one outgoing HTTP
/// client (`OutboundClients`). Every call has a deadline, so a provider that does not answer costs
/// the client a 504, never a hang. Tokens travel in requests only: nothing here logs.
struct HTTPSocialGateway: SocialGateway {
    let client: HTTPClient
    /// Provider answers are small JSON documents; anything bigger is not one.
    static let maxReplyBytes = 1 << 20

    struct Reply {
        let status: Int
        let json: JSONValue?

        var object: JSONObject? { json?.objectValue }
    }

    func send(_ request: HTTPClientRequest, _ provider: SocialProvider, timeoutSeconds: Int) async throws(SocialError) -> Reply {
        do {
            let response = try await client.execute(request, deadline: NIODeadline.now() + .seconds(Int64(timeoutSeconds)))
            let body = try await response.body.collect(upTo: Self.maxReplyBytes)
            return Reply(status: Int(response.status.code), json: try? JSONParser.parse(body.readableBytesView))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw .timedOut(provider, seconds: timeoutSeconds)
        } catch {
            throw .unreachable(provider)
        }
    }

    /// Sorts out what is not a usable answer: 5xx or not JSON → the provider failed; 4xx → it
    /// refused the credentials.
    func object(_ reply: Reply, _ provider: SocialProvider) throws(SocialError) -> JSONObject {
        switch reply.status {
        case 200..<300:
            guard let object = reply.object else { throw .providerFailed(provider) }
            return object
        case 400..<500: throw .rejected(provider)
        default: throw .providerFailed(provider)
        }
    }

    /// `name=value&…`, RFC 3986-encoded (query strings and form bodies alike).
    static func encodedPairs(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(OAuth1Encoding.encode($0.0))=\(OAuth1Encoding.encode($0.1))" }.joined(separator: "&")
    }
}
