import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import StackMobCore

/// The `apns` sender: Apple's HTTP/2 provider API with token-based authentication.
///
/// `POST <endpoint>/3/device/<token>` with `authorization: bearer <ES256 JWT>`, `apns-topic`
/// (the bundle id), `apns-push-type: alert` and the iOS body (`aps` plus custom data). A 400 or
/// 410 whose reason is `BadDeviceToken`, `Unregistered` or `DeviceTokenNotForTopic` makes the
/// token invalid; any other failure is retried.
struct APNsPushSender: PushSender {
    let client: HTTPClient
    let settings: APNsSettings
    let endpoint: String
    let tokens: APNsTokenCache
    let timeoutSeconds: Int

    static let invalidTokenReasons: Set<String> = ["BadDeviceToken", "Unregistered", "DeviceTokenNotForTopic"]
    static let providerTokenReasons: Set<String> = ["ExpiredProviderToken", "InvalidProviderToken"]

    func deliver(_ delivery: PushDelivery) async throws -> DeliveryOutcome {
        guard delivery.token.type == .ios else {
            return .retryLater(reason: "the apns sender only delivers to ios tokens")
        }
        let jwt = try await tokens.current()
        var request = HTTPClientRequest(url: "\(endpoint)/3/device/\(delivery.token.token)")
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(jwt)")
        request.headers.add(name: "apns-topic", value: settings.topic)
        request.headers.add(name: "apns-push-type", value: "alert")
        request.headers.add(name: "apns-priority", value: "10")
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: JSONWriter.bytes(.object(delivery.payload))))
        let response = try await client.execute(request, deadline: NIODeadline.now() + .seconds(Int64(timeoutSeconds)))
        let body = try await response.body.collect(upTo: 64 * 1024)
        let status = Int(response.status.code)
        if status == 200 { return .delivered }
        let reason = (try? JSONParser.parse(body.readableBytesView))?.objectValue?["reason"]?.stringValue ?? "HTTP \(status)"
        if (status == 400 || status == 410) && Self.invalidTokenReasons.contains(reason) {
            return .invalidToken(reason: "APNs: \(reason)")
        }
        if status == 403 && Self.providerTokenReasons.contains(reason) {
            await tokens.invalidate()
        }
        return .retryLater(reason: "APNs answered \(status): \(reason)")
    }
}

/// The provider token, made once and reused: Apple refuses tokens older than an hour and
/// throttles providers that make a new one per request, so it is refreshed after 50 minutes.
actor APNsTokenCache {
    private let key: P256.Signing.PrivateKey
    private let keyID: String
    private let teamID: String
    private let clock: any ServerClock
    private var cached: (token: String, issuedAt: Int64)?
    static let lifetimeSeconds: Int64 = 50 * 60

    init(key: P256.Signing.PrivateKey, keyID: String, teamID: String, clock: any ServerClock) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
    }

    func current() throws -> String {
        let now = clock.nowMilliseconds() / 1000
        if let cached, now - cached.issuedAt < Self.lifetimeSeconds { return cached.token }
        let token = try APNsJWT.make(key: key, keyID: keyID, teamID: teamID, issuedAtSeconds: now)
        cached = (token, now)
        return token
    }

    func invalidate() {
        cached = nil
    }
}
