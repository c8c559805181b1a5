import Foundation
import StackMobCore

/// Builds the DATA payload of a plain-text UTF-8 mail (RFC 5322), line endings CRLF, lines
/// starting with `.` dot-stuffed (RFC 5321 §4.5.2), ending with `<CRLF>.<CRLF>`.
public enum SMTPMessageFormatter {
    public static func data(_ message: MailMessage, from: String, date: Date, messageID: String) throws(SMTPError) -> String {
        for (name, value) in [("recipient", message.to), ("subject", message.subject), ("sender", from)]
        where value.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw .invalidMessage("line break in the \(name)")
        }
        let headers = [
            "From: \(from)",
            "To: \(message.to)",
            "Subject: \(encodedHeader(message.subject))",
            "Date: \(rfc5322Date(date))",
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
        ]
        let normalized = message.body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let body = normalized.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") ? "." + line : String(line)
        }
        return (headers + [""] + body).joined(separator: "\r\n") + "\r\n.\r\n"
    }

    /// RFC 2047 `=?UTF-8?B?…?=` when the text is not plain ASCII.
    static func encodedHeader(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.isASCII }) { return text }
        return "=?UTF-8?B?\(Data(text.utf8).base64EncodedString())?="
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
