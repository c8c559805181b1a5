import Foundation
import Testing

@testable import StackMobCore

@Suite("Configuration: environments.<env>.social")
struct ConfigurationSocialTests {
    @Test("every key decodes; base URLs lose a trailing slash; defaults")
    func decodes() throws {
        let secret = Data("site".utf8).base64EncodedString()
        let tree: JSONObject = [
            "environments": [
                "production": [
                    "social": [
                        "timeout_seconds": 7,
                        "facebook": ["app_id": "1", "app_secret": "s", "graph_url": "http://proxy:8080/"],
                        "twitter": ["consumer_key": "k", "consumer_secret": "c"],
                        "gigya": ["secret": .string(secret), "timestamp_window_seconds": 60],
                    ]
                ]
            ]
        ]
        let social = try ConfigurationDecoder.decode(tree).production.social
        #expect(social.timeoutSeconds == 7)
        #expect(social.facebook == FacebookSettings(appID: "1", appSecret: "s", graphURL: "http://proxy:8080"))
        #expect(social.twitter == TwitterSettings(consumerKey: "k", consumerSecret: "c", apiURL: "https://api.twitter.com"))
        #expect(social.gigya == GigyaSettings(secret: secret, timestampWindowSeconds: 60))
        #expect(try ConfigurationDecoder.decode([:]).development.social == SocialSettings())
    }

    @Test(
        "start-up refuses incomplete or malformed providers, naming the key",
        arguments: [
            (["facebook": ["app_id": "1"]], "social.facebook.app_secret"),
            (["facebook": ["app_id": "1", "app_secret": "s", "graph_url": "graph.facebook.com"]], "social.facebook.graph_url"),
            (["twitter": ["consumer_secret": "c"]], "social.twitter.consumer_key"),
            (["twitter": ["consumer_key": "k", "consumer_secret": "c", "api_url": "ftp://x"]], "social.twitter.api_url"),
            (["gigya": ["secret": "not base64!"]], "social.gigya.secret"),
            (["gigya": [:]], "social.gigya.secret"),
            (["linkedin": [:]], "social.linkedin"),
            (["timeout_seconds": 0], "social.timeout_seconds"),
        ] as [(JSONValue, String)])
    func refuses(social: JSONValue, key: String) throws {
        do {
            _ = try ConfigurationDecoder.decode(["environments": ["development": ["social": social]]])
            Issue.record("accepted \(social)")
        } catch let error as ConfigurationError {
            #expect(error.key == "environments.development.\(key)", "\(error)")
        }
    }
}

@Suite("Configuration: social keys from environment variables")
struct ConfigurationSocialVariablesTests {
    @Test("a provider configured from variables alone")
    func variables() throws {
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "STACKMOB_ENVIRONMENTS__PRODUCTION__SOCIAL__FACEBOOK__APP_ID": "42",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__SOCIAL__FACEBOOK__APP_SECRET": "shh",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__SOCIAL__TIMEOUT_SECONDS": "3",
            ])
        #expect(configuration.production.social.facebook == FacebookSettings(appID: "42", appSecret: "shh"))
        #expect(configuration.production.social.timeoutSeconds == 3)
        #expect(configuration.development.social.facebook == nil)
    }
}
