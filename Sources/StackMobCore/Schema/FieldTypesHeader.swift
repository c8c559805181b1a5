import Foundation

/// `X-StackMob-FieldTypes: location=geopoint&email=forgotpassword` (PROTOCOL §6.6): the Java SDK
/// announces special field types with each model save. Types are compared lower-case; malformed
/// pairs are skipped, since the header is advisory.
public enum FieldTypesHeader {
    public static func parse(_ header: String) -> [(path: String, type: String)] {
        header.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let path = parts[0].trimmingSpaces()
            let type = parts[1].trimmingSpaces().lowercased()
            return path.isEmpty || type.isEmpty ? nil : (path, type)
        }
    }
}
