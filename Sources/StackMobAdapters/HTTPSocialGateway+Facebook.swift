import AsyncHTTPClient
import NIOCore
import StackMobCore

/// Facebook through the Graph API: `debug_token` (with the app token `<app_id>|<app_secret>`)
/// says whether the user token is valid and which app it was issued to; `/me` whose it is.
extension HTTPSocialGateway {
    func facebookUser(accessToken: String, settings: FacebookSettings, timeoutSeconds: Int) async throws(SocialError) -> SocialIdentity {
        let debug = try object(
            try await send(
                HTTPClientRequest(
                    url: settings.graphURL + "/debug_token?"
                        + Self.encodedPairs([("input_token", accessToken), ("access_token", "\(settings.appID)|\(settings.appSecret)")])),
                .facebook, timeoutSeconds: timeoutSeconds), .facebook)
        guard let data = debug["data"]?.objectValue, data["is_valid"] == .bool(true), let owner = Self.idString(data["user_id"]) else {
            throw .rejected(.facebook)
        }
        guard Self.idString(data["app_id"]) == settings.appID else { throw .issuedToAnotherApp }
        let me = try object(
            try await send(
                HTTPClientRequest(
                    url: settings.graphURL + "/me?"
                        + Self.encodedPairs([("access_token", accessToken), ("appsecret_proof", settings.appSecretProof(for: accessToken))])),
                .facebook, timeoutSeconds: timeoutSeconds), .facebook)
        // The two answers must agree on whose token it is.
        guard Self.idString(me["id"]) == owner else { throw .rejected(.facebook) }
        return SocialIdentity(provider: .facebook, accountID: owner, profile: me)
    }

    func facebookPost(message: String, accessToken: String, settings: FacebookSettings, timeoutSeconds: Int) async throws(SocialError) -> JSONValue {
        var request = HTTPClientRequest(url: settings.graphURL + "/me/feed")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(
            ByteBuffer(
                string: Self.encodedPairs([
                    ("message", message), ("access_token", accessToken), ("appsecret_proof", settings.appSecretProof(for: accessToken)),
                ])))
        return .object(try object(try await send(request, .facebook, timeoutSeconds: timeoutSeconds), .facebook))
    }

    /// Graph ids are strings, but some answers carry them as numbers.
    static func idString(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        default: nil
        }
    }
}
