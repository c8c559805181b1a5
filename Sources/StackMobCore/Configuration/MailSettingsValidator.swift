import Foundation

/// Start-up checks of `mail` (config/README.md, "Mail"): a bad relay setting must stop the
/// server at start, not the first forgotPassword.
enum MailSettingsValidator {
    static func validate(_ mail: MailSettings) throws {
        guard isPlainAddress(mail.from) else {
            throw ConfigurationError(key: "mail.from", "must be an e-mail address such as no-reply@example.com (no name, no line breaks)")
        }
        let smtp = mail.smtp
        guard let host = smtp.host else { return }
        if host.isEmpty || host.contains(where: { $0.isWhitespace }) {
            throw ConfigurationError(key: "mail.smtp.host", "must be a host name or address, or null for the outbox")
        }
        if (smtp.username == nil) != (smtp.password == nil) {
            throw ConfigurationError(key: smtp.username == nil ? "mail.smtp.username" : "mail.smtp.password", "username and password go together")
        }
        for (key, value) in [("mail.smtp.username", smtp.username), ("mail.smtp.password", smtp.password)] {
            if let value, value.isEmpty || value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                // The message never echoes the value: the password is a secret.
                throw ConfigurationError(key: key, "must be non-empty, without line breaks or NUL characters")
            }
        }
        if let caFile = smtp.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError(key: "mail.smtp.ca_file", "cannot read '\(caFile)'")
        }
        if smtp.caFile != nil && !smtp.startTLS {
            throw ConfigurationError(key: "mail.smtp.ca_file", "is only used with starttls: true")
        }
    }

    /// `local@domain`, printable ASCII without spaces or angle brackets: it goes into SMTP
    /// commands and headers as is.
    static func isPlainAddress(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        return address.unicodeScalars.allSatisfy { $0.value > 32 && $0.value < 127 && $0 != "<" && $0 != ">" }
    }
}
