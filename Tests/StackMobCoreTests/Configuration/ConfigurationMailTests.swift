import Foundation
import Testing

@testable import StackMobCore

@Suite("Configuration: mail and OAuth 1.0 keys")
struct ConfigurationMailTests {
    @Test("mail.smtp from variables; defaults are the outbox; the OAuth 1.0 window is per environment")
    func fromVariables() throws {
        #expect(StackMobConfiguration().mail.smtp.host == nil)
        #expect(StackMobConfiguration().mail.smtp.port == 587)
        #expect(StackMobConfiguration().mail.smtp.startTLS)
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "STACKMOB_MAIL__FROM": "app@example.com", "STACKMOB_MAIL__SMTP__HOST": "smtp.example.com", "STACKMOB_MAIL__SMTP__PORT": "2525",
                "STACKMOB_MAIL__SMTP__STARTTLS": "false", "STACKMOB_MAIL__SMTP__USERNAME": "u", "STACKMOB_MAIL__SMTP__PASSWORD": "p-Secret",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__OAUTH1_TIMESTAMP_WINDOW_SECONDS": "0",
            ])
        #expect(configuration.mail.from == "app@example.com")
        #expect(configuration.mail.smtp.host == "smtp.example.com")
        #expect(configuration.mail.smtp.port == 2525)
        #expect(!configuration.mail.smtp.startTLS)
        #expect(configuration.mail.smtp.username == "u")
        #expect(configuration.production.oauth1TimestampWindowSeconds == 0)
        #expect(configuration.development.oauth1TimestampWindowSeconds == 600)
    }

    @Test("start-up refuses a bad sender, half credentials, an unreadable CA file; errors never echo the password")
    func validation() throws {
        let cases: [([String: String], String)] = [
            (["STACKMOB_MAIL__FROM": "not an address"], "mail.from"),
            (["STACKMOB_MAIL__SMTP__HOST": "smtp.example.com", "STACKMOB_MAIL__SMTP__PASSWORD": "p-Secret"], "mail.smtp.username"),
            (["STACKMOB_MAIL__SMTP__HOST": "smtp.example.com", "STACKMOB_MAIL__SMTP__CA_FILE": "/nonexistent/ca.pem"], "mail.smtp.ca_file"),
            (["STACKMOB_MAIL__SMTP__PORT": "70000"], "mail.smtp.port"),
        ]
        for (environment, key) in cases {
            do {
                _ = try ConfigurationLoader.load(file: nil, environment: environment)
                Issue.record("accepted \(environment)")
            } catch let error as ConfigurationError {
                #expect("\(error)".contains(key), "\(error)")
                #expect(!"\(error)".contains("p-Secret"))
            }
        }
    }
}
