import Crypto
import Foundation

/// Checks of the push keys: every sender a token type uses must be fully configured.
extension ConfigurationValidator {
    static func validatePush(_ configuration: StackMobConfiguration) throws {
        if configuration.push.delivery.initialBackoffSeconds > configuration.push.delivery.maxBackoffSeconds {
            throw ConfigurationError(key: "push.delivery.initial_backoff_seconds", "must not exceed push.delivery.max_backoff_seconds")
        }
        if configuration.push.listen, configuration.push.port != 0, configuration.push.port == configuration.port {
            throw ConfigurationError(key: "push.port", "must differ from listen.port (set push.listen to false to serve push on the API port only)")
        }
        for kind in EnvironmentKind.allCases {
            let prefix = "environments.\(kind.rawValue).push"
            let push = configuration.settings(for: kind).push
            let kinds = Set(PushTokenType.allCases.map(push.sender(for:)))
            if let url = push.webhookURL, !isHTTPURL(url) {
                throw ConfigurationError(key: "\(prefix).webhook_url", "must be an absolute http:// or https:// URL")
            }
            if kinds.contains(.webhook), push.webhookURL == nil {
                throw ConfigurationError(key: "\(prefix).webhook_url", "is required when a token type uses the webhook sender")
            }
            for type in [PushTokenType.android, .androidgcm] where push.sender(for: type) == .apns {
                throw ConfigurationError(key: "\(prefix).senders.\(type.rawValue)", "apns delivers to ios tokens only")
            }
            if kinds.contains(.apns) {
                guard let apns = push.apns else { throw ConfigurationError(key: "\(prefix).apns", "is required when a token type uses the apns sender") }
                try validateAPNs(apns, prefix: "\(prefix).apns", kind: kind)
            }
        }
    }

    private static func validateAPNs(_ apns: APNsSettings, prefix: String, kind: EnvironmentKind) throws {
        guard let pem = try? String(contentsOfFile: apns.keyFile, encoding: .utf8) else {
            throw ConfigurationError(key: "\(prefix).key_file", "cannot read '\(apns.keyFile)'")
        }
        guard (try? P256.Signing.PrivateKey(pemRepresentation: pem)) != nil else {
            throw ConfigurationError(key: "\(prefix).key_file", "'\(apns.keyFile)' is not a PEM EC P-256 private key (the .p8 file from Apple)")
        }
        guard let url = URL(string: apns.resolvedEndpoint(for: kind)), url.scheme?.lowercased() == "https", url.host != nil else {
            throw ConfigurationError(key: "\(prefix).endpoint", "must be an absolute https:// URL")
        }
        if let caFile = apns.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError(key: "\(prefix).ca_file", "cannot read '\(caFile)'")
        }
    }
}
