import AsyncHTTPClient
import Foundation
import NIOCore
import StackMobCore

/// The `webhook` sender: each delivery is POSTed as JSON to the configured URL, for teams that
/// bridge to APNs or FCM themselves.
///
/// Body: `{"notification_id", "delivery_id", "environment", "type", "token", "user", "payload",
/// "attempt"}`; `delivery_id` is stable across retries, so a receiver can drop duplicates.
/// Answers: 2xx delivered; 410 the token is invalid (expired list); anything else, or no answer,
/// retry later.
struct WebhookPushSender: PushSender {
    let client: HTTPClient
    let url: String
    let environment: EnvironmentKind
    let timeoutSeconds: Int

    func deliver(_ delivery: PushDelivery) async throws -> DeliveryOutcome {
        var body: JSONObject = [
            "notification_id": .string(delivery.notificationID), "delivery_id": .integer(delivery.id),
            "environment": .string(environment.rawValue), "type": .string(delivery.token.type.rawValue),
            "token": .string(delivery.token.token), "payload": .object(delivery.payload), "attempt": .integer(Int64(delivery.attempts + 1)),
        ]
        if let user = delivery.user { body["user"] = .string(user) }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-StackMob-Push-Delivery", value: String(delivery.id))
        request.body = .bytes(ByteBuffer(bytes: JSONWriter.bytes(.object(body))))
        let response = try await client.execute(request, deadline: NIODeadline.now() + .seconds(Int64(timeoutSeconds)))
        // The body is not needed, but must be consumed to free the connection.
        _ = try? await response.body.collect(upTo: 64 * 1024)
        switch response.status.code {
        case 200..<300: return .delivered
        case 410: return .invalidToken(reason: "webhook answered 410")
        default: return .retryLater(reason: "webhook answered \(response.status.code)")
        }
    }
}
