import Foundation

/// Checks of the binary-file and custom-code keys.
extension ConfigurationValidator {
    static func validateFiles(_ files: FileSettings) throws {
        switch files.store {
        case .local:
            break
        case .s3:
            guard let s3 = files.s3 else { throw ConfigurationError(key: "files.s3", "is required when files.store is s3") }
            guard isHTTPURL(s3.endpoint) else { throw ConfigurationError(key: "files.s3.endpoint", "must be an absolute http:// or https:// URL") }
        }
    }

    static func validateFilesBaseURL(_ base: String?, prefix: String) throws {
        if let base, !isHTTPURL(base) {
            // Every SDK recognises an uploaded file by a value starting with `http` (PROTOCOL §7).
            throw ConfigurationError(key: "\(prefix).files_base_url", "must be an absolute http:// or https:// URL")
        }
    }

    static func validateCustomCode(_ methods: [CustomCodeMethod], prefix: String) throws {
        var names: Set<String> = []
        for method in methods {
            let key = "\(prefix).custom_code.\(method.name)"
            // A method is a single path segment, like a schema name (PROTOCOL §2.3).
            guard !method.name.isEmpty, method.name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }), method.name.first!.isLetter else {
                throw ConfigurationError(key: key, "'\(method.name)' is not a valid method name (letters, digits, _ and -, starting with a letter)")
            }
            guard method.name.lowercased() != "listapi" else { throw ConfigurationError(key: key, "'listapi' is a reserved name") }
            guard names.insert(method.name.lowercased()).inserted else {
                throw ConfigurationError(key: key, "is listed twice (names are case-insensitive)")
            }
            guard isHTTPURL(method.url) else { throw ConfigurationError(key: key, "must be an absolute http:// or https:// webhook URL") }
        }
    }

    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil else { return false }
        return scheme == "http" || scheme == "https"
    }
}
