import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// Who the console serves on this request: the operator the admin API named for the cookie,
/// the session's CSRF token (put in every form) and the environment in the path.
struct ConsoleSession: Sendable {
    let operatorName: String
    let csrf: String
    let environment: String
}

/// Renders the console's pages from the Mustache templates compiled into the binary. `{{…}}`
/// escapes `<`, `>`, `&`, `"` and `'`, and the templates use nothing else for values: a stored
/// `<script>` is shown as text. The headers forbid inline script, framing and sniffing as a
/// second line of defence.
struct ConsolePages: Sendable {
    static let shared = ConsolePages()
    let library: MustacheLibrary

    init() {
        var library = MustacheLibrary()
        for (name, text) in ConsoleTemplates.all {
            // The templates are compiled into this module; the console tests render each.
            do { try library.register(text, named: name) } catch { preconditionFailure("console template \(name): \(error)") }
        }
        self.library = library
    }

    /// The page's headers. Scripts run only from the console's own script tag, named by a nonce
    /// fresh on every page: `'self'` would also admit a script stored as a file under `/_files/`
    /// on this origin.
    static func headers(nonce: String) -> HTTPFields {
        [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            HTTPField.Name("Content-Security-Policy")!:
                "default-src 'self'; script-src 'nonce-\(nonce)'; style-src 'self'; img-src 'self' data: https:; object-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("Referrer-Policy")!: "same-origin",
        ]
    }

    /// 128 random bits, base64: a CSP nonce.
    static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        return Data(bytes).base64EncodedString()
    }

    func html(_ template: String, _ data: [String: Any], session: ConsoleSession?, nonce: String = "") -> String {
        var context = data
        context["prefix"] = ConsoleController.prefix
        context["nonce"] = nonce
        if let session {
            context["session"] = [
                "operator": session.operatorName, "csrf": session.csrf, "env": session.environment,
                "environments": ["development", "production"].map { name -> [String: Any] in
                    ["name": name, "current": name == session.environment, "href": "\(ConsoleController.prefix)/\(name)/overview"]
                },
                "nav": Self.navigation(session.environment, current: template),
            ] as [String: Any]
        }
        return library.render(context, withTemplate: template) ?? ""
    }

    func response(_ template: String, _ data: [String: Any], session: ConsoleSession?, status: HTTPResponse.Status = .ok) -> Response {
        let nonce = Self.makeNonce()
        return Response(
            status: status, headers: Self.headers(nonce: nonce),
            body: .init(byteBuffer: ByteBuffer(string: html(template, data, session: session, nonce: nonce))))
    }

    private static func navigation(_ environment: String, current: String) -> [[String: Any]] {
        var items: [(String, String, String)] = [
            ("overview", "Overview", "overview"), ("traffic", "Traffic", "traffic"), ("requests", "Recent requests", "requests"),
            ("schemas", "Schemas", "schemas"), ("data", "Data", "data"),
            ("users", "Users", "users"), ("push", "Push", "push"), ("custom-code", "Custom code", "customcode"),
            ("deploy", "Deploy", "deploy"), ("backups", "Backups", "backups"),
        ]
        if environment == "development" { items.append(("mail", "Mail outbox", "mail")) }
        return items.map { path, label, template -> [String: Any] in
            let active = current == template || (template == "schemas" && current == "schema") || (template == "data" && current == "object")
            return ["label": label, "href": "\(ConsoleController.prefix)/\(environment)/\(path)", "current": active]
        }
    }
}
