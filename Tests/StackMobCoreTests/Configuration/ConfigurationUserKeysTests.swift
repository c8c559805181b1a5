import Foundation
@testable import StackMobCore
import Testing

@Suite("Configuration: login, token and signature keys")
struct ConfigurationUserKeysTests {
    @Test("defaults, and the keys set through variables")
    func keys() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.development.accessTokenLifetimeSeconds == 3600)
        #expect(defaults.development.refreshTokenLifetimeDays == 30)
        #expect(defaults.development.macTimestampWindowSeconds == 600)
        #expect(!defaults.development.expiredTokenAsAnonymous)
        #expect(!defaults.production.singleSession)
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "STACKMOB_ENVIRONMENTS__PRODUCTION__ACCESS_TOKEN_LIFETIME_SECONDS": "7200",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__REFRESH_TOKEN_LIFETIME_DAYS": "7",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__MAC_TIMESTAMP_WINDOW_SECONDS": "0",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__EXPIRED_TOKEN_AS_ANONYMOUS": "true",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__SINGLE_SESSION": "true",
                "STACKMOB_ENVIRONMENTS__DEVELOPMENT__USER_SCHEMAS": #"[{"name": "member", "login_field": "name", "email_field": "mail"}]"#,
            ])
        #expect(configuration.production.accessTokenLifetimeSeconds == 7200)
        #expect(configuration.production.refreshTokenLifetimeDays == 7)
        #expect(configuration.production.macTimestampWindowSeconds == 0)
        #expect(configuration.production.expiredTokenAsAnonymous)
        #expect(configuration.production.singleSession)
        #expect(configuration.development.userSchemas == [UserSchema(name: "member", loginField: "name", passwordField: "password", emailField: "mail")])
    }

    @Test("out-of-range or wrongly typed values are refused with the key named")
    func invalid() {
        let cases: [(String, String, String)] = [
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__ACCESS_TOKEN_LIFETIME_SECONDS", "0", "access_token_lifetime_seconds"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__REFRESH_TOKEN_LIFETIME_DAYS", "0", "refresh_token_lifetime_days"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__MAC_TIMESTAMP_WINDOW_SECONDS", "-1", "mac_timestamp_window_seconds"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__SINGLE_SESSION", "maybe", "single_session"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__USER_SCHEMAS", #"[{"name": "user", "email_field": "password"}]"#, "email_field"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__USER_SCHEMAS", #"[{"name": "user", "email_field": "bad name"}]"#, "email_field"),
        ]
        for (variable, value, key) in cases {
            #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: nil, environment: [variable: value]) }
            do {
                _ = try ConfigurationLoader.load(file: nil, environment: [variable: value])
            } catch {
                #expect("\(error)".contains(key), "\(error)")
            }
        }
    }
}
