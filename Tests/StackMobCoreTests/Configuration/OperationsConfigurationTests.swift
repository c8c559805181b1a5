import Foundation
import Testing

import StackMobCore

/// The operations keys (docs/operations.md): `fixtures`, `backups.*`, `monitoring.*`,
/// `logging.format`.
@Suite("Configuration: fixtures, backups, monitoring, logging")
struct OperationsConfigurationTests {
    @Test("the keys are read from environment variables, with their defaults otherwise")
    func readsKeys() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.fixturesFile == nil && defaults.backups == BackupSettings() && defaults.logFormat == .text)
        #expect(defaults.monitoring.enabled && defaults.monitoring.host == "127.0.0.1" && defaults.monitoring.port == nil)
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "STACKMOB_FIXTURES": "ci/fixtures.json", "STACKMOB_BACKUPS__INTERVAL_SECONDS": "3600", "STACKMOB_BACKUPS__KEEP": "3",
                "STACKMOB_BACKUPS__DIRECTORY": "/var/backups/sm", "STACKMOB_MONITORING__PORT": "9100",
                "STACKMOB_MONITORING__KEY": "0123456789abcdef0123", "STACKMOB_LOGGING__FORMAT": "json",
            ])
        #expect(configuration.fixturesFile == "ci/fixtures.json")
        #expect(configuration.backups.intervalSeconds == 3600 && configuration.backups.keep == 3)
        #expect(configuration.backups.directory(dataDirectory: "./data") == "/var/backups/sm")
        #expect(BackupSettings().directory(dataDirectory: "./data") == "./data/backups")
        #expect(configuration.monitoring.port == 9100 && configuration.monitoring.key == "0123456789abcdef0123")
        #expect(configuration.logFormat == .json)
    }

    @Test("bad values stop start-up naming the key", arguments: [
        (["STACKMOB_MONITORING__KEY": "short"], "configuration key 'monitoring.key': must be at least 16 characters long"),
        (["STACKMOB_BACKUPS__KEEP": "0"], "configuration key 'backups.keep'"),
        (["STACKMOB_LOGGING__FORMAT": "xml"], "configuration key 'logging.format': must be one of text, json"),
        (["STACKMOB_MONITORING__PORT": "8080"], "configuration key 'monitoring.port': must differ from listen.port (8080)"),
    ])
    func refusesBadValues(variables: [String: String], message: String) {
        #expect {
            _ = try ConfigurationLoader.load(file: nil, environment: variables)
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}
