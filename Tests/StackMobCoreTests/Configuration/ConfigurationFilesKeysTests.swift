import Foundation
@testable import StackMobCore
import Testing

@Suite("Configuration: files, custom code and CORS keys")
struct ConfigurationFilesKeysTests {
    @Test("defaults, and the keys set through variables")
    func keys() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.files == FileSettings())
        #expect(defaults.files.maxBytes == 10 * 1024 * 1024)
        #expect(defaults.customCodeTimeoutSeconds == 25)
        #expect(defaults.development.corsAllowedOrigins == ["*"])
        #expect(defaults.production.corsAllowedOrigins == [])
        #expect(defaults.production.corsMaxAgeSeconds == 600)
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "STACKMOB_FILES__MAX_BYTES": "2048",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__FILES_BASE_URL": "https://cdn.example.com/files/",
                "STACKMOB_CUSTOM_CODE__TIMEOUT_SECONDS": "5",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__CORS_ALLOWED_ORIGINS": #"["https://app.example.com"]"#,
                "STACKMOB_ENVIRONMENTS__PRODUCTION__CORS_MAX_AGE_SECONDS": "60",
                "STACKMOB_ENVIRONMENTS__PRODUCTION__CUSTOM_CODE": #"{"sendMail": "http://127.0.0.1:9000/mail"}"#,
            ])
        #expect(configuration.files.maxBytes == 2048)
        #expect(configuration.production.filesBaseURL == "https://cdn.example.com/files")
        #expect(configuration.development.filesBaseURL == nil)
        #expect(configuration.customCodeTimeoutSeconds == 5)
        #expect(configuration.production.corsAllowedOrigins == ["https://app.example.com"])
        #expect(configuration.production.corsMaxAgeSeconds == 60)
        #expect(configuration.production.customCode == [CustomCodeMethod(name: "sendMail", url: "http://127.0.0.1:9000/mail")])
        #expect(configuration.production.customCodeMethod(named: "SENDMAIL")?.name == "sendMail")
    }

    @Test("bad values are refused with the key named")
    func invalid() {
        let cases: [(String, String, String)] = [
            ("STACKMOB_FILES__MAX_BYTES", "0", "files.max_bytes"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__FILES_BASE_URL", "files.example.com", "environments.development.files_base_url"),
            // One base for both environments would make their URLs collide (D32): refused, saying where it went.
            ("STACKMOB_FILES__BASE_URL", "https://files.example.com", "environments.<env>.files_base_url"),
            ("STACKMOB_FILES__STORE", "s3", "files.s3"),
            ("STACKMOB_FILES__STORE", "ftp", "files.store"),
            ("STACKMOB_CUSTOM_CODE__TIMEOUT_SECONDS", "0", "custom_code.timeout_seconds"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__CUSTOM_CODE", #"{"send mail": "http://x/"}"#, "custom_code.send mail"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__CUSTOM_CODE", #"{"a": "http://x/", "A": "http://y/"}"#, "custom_code"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__CUSTOM_CODE", #"{"listapi": "http://x/"}"#, "custom_code.listapi"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__CUSTOM_CODE", #"{"m": "not a url"}"#, "custom_code.m"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__CUSTOM_CODE", #"{"m": 3}"#, "custom_code.m"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__CORS_ALLOWED_ORIGINS", #"[""]"#, "cors_allowed_origins"),
            ("STACKMOB_ENVIRONMENTS__DEVELOPMENT__CORS_MAX_AGE_SECONDS", "-1", "cors_max_age_seconds"),
        ]
        for (variable, value, key) in cases {
            do {
                _ = try ConfigurationLoader.load(file: nil, environment: [variable: value])
                Issue.record("\(variable)=\(value) was accepted")
            } catch {
                #expect(error is ConfigurationError)
                #expect("\(error)".contains(key), "\(error)")
            }
        }
    }
}
