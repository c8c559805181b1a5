import Foundation
@testable import StackMobCore
import Testing

@Suite("Configuration: STACKMOB_ variables that name no key")
struct ConfigurationForeignVariablesTests {
    @Test("variables naming no key are left out and reported; the others still apply, and their bad values still stop start-up")
    func leftOut() throws {
        let loaded = try ConfigurationLoader.loadReportingIgnored(
            file: nil,
            environment: [
                "STACKMOB_HOST": "api.example.com", "STACKMOB_PUBLIC_KEY": "x", "STACKMOB_LISTEN__PROT": "80",
                "STACKMOB_ENVIRONMENTS__STAGING__SCHEMA_INFERENCE": "true", "STACKMOB_": "", "STACKMOB_A____B": "1",
                "STACKMOB_LISTEN__PORT": "9100", "STACKMOB_ENVIRONMENTS__DEVELOPMENT__ACCESS_TOKEN_LIFETIME_SECONDS": "2",
                "HOME": "/root",
            ])
        #expect(loaded.ignoredVariables == [
            "STACKMOB_", "STACKMOB_A____B", "STACKMOB_ENVIRONMENTS__STAGING__SCHEMA_INFERENCE", "STACKMOB_HOST", "STACKMOB_LISTEN__PROT",
            "STACKMOB_PUBLIC_KEY",
        ])
        #expect(loaded.configuration.port == 9100)
        #expect(loaded.configuration.development.accessTokenLifetimeSeconds == 2)
        #expect(throws: ConfigurationError(key: "listen.port", "must be an integer from 0 to 65535")) {
            try ConfigurationLoader.load(file: nil, environment: ["STACKMOB_HOST": "h", "STACKMOB_LISTEN__PORT": "eighty"])
        }
        // A JSON value's own unknown keys are a mistake in a key that exists: refused.
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(file: nil, environment: ["STACKMOB_ENVIRONMENTS__DEVELOPMENT__USER_SCHEMAS": #"[{"nme": "u"}]"#])
        }
    }

    @Test("a configuration file's unknown keys are still refused, also when a variable sets the same key")
    func fileStillStrict() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stackmob-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"listen": {"prot": 80}}"#.utf8).write(to: file)
        for environment in [[:], ["STACKMOB_LISTEN__PROT": "81"]] {
            #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: file.path, environment: environment) }
            do {
                _ = try ConfigurationLoader.load(file: file.path, environment: environment)
            } catch {
                #expect("\(error)".contains("'listen.prot': unknown key"), "\(error)")
            }
        }
    }
}
