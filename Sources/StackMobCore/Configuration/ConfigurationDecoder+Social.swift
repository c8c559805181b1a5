/// `environments.<env>.social`: Facebook, Twitter and Gigya login (PROTOCOL §9).
extension ConfigurationDecoder {
    func social() throws -> SocialSettings {
        try refuseUnknownKeys(["timeout_seconds", "facebook", "twitter", "gigya"])
        var settings = SocialSettings()
        settings.timeoutSeconds = try integer("timeout_seconds", in: 1...300) ?? settings.timeoutSeconds
        if let facebook = try section("facebook") {
            try facebook.refuseUnknownKeys(["app_id", "app_secret", "graph_url"])
            settings.facebook = FacebookSettings(
                appID: try facebook.required("app_id", in: "social.facebook"), appSecret: try facebook.required("app_secret", in: "social.facebook"),
                graphURL: try facebook.baseURL("graph_url") ?? FacebookSettings.defaultGraphURL)
        }
        if let twitter = try section("twitter") {
            try twitter.refuseUnknownKeys(["consumer_key", "consumer_secret", "api_url"])
            settings.twitter = TwitterSettings(
                consumerKey: try twitter.required("consumer_key", in: "social.twitter"),
                consumerSecret: try twitter.required("consumer_secret", in: "social.twitter"),
                apiURL: try twitter.baseURL("api_url") ?? TwitterSettings.defaultAPIURL)
        }
        if let gigya = try section("gigya") {
            try gigya.refuseUnknownKeys(["secret", "timestamp_window_seconds"])
            settings.gigya = GigyaSettings(
                secret: try gigya.required("secret", in: "social.gigya"),
                timestampWindowSeconds: try gigya.integer("timestamp_window_seconds", in: 1...86_400) ?? 180)
        }
        return settings
    }

    private func required(_ key: String, in section: String) throws -> String {
        guard let value = try string(key), !value.isEmpty else {
            throw ConfigurationError(key: keyPath(key), "is required when \(section) is given")
        }
        return value
    }

    /// A base URL without its trailing slash, so paths are appended as they are.
    private func baseURL(_ key: String) throws -> String? {
        try string(key).map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }
}
