/// The console's page templates: the Mustache files in `Console/Templates/`, compiled into the
/// binary (`embedInCode` in Package.swift), so there are no files to ship and no build step.
/// Values are only ever written with `{{…}}` (escaped), never `{{{…}}}`.
enum ConsoleTemplates {
    static let all: [String: String] = [
        "top": text(PackageResources.top_mustache),
        "bottom": text(PackageResources.bottom_mustache),
        "csrf": text(PackageResources.csrf_mustache),
        "message": text(PackageResources.message_mustache),
        "signin": text(PackageResources.signin_mustache),
        "overview": text(PackageResources.overview_mustache),
        "schemas": text(PackageResources.schemas_mustache),
        "schema": text(PackageResources.schema_mustache),
        "data": text(PackageResources.data_mustache),
        "object": text(PackageResources.object_mustache),
        "users": text(PackageResources.users_mustache),
        "push": text(PackageResources.push_mustache),
        "customcode": text(PackageResources.customcode_mustache),
        "deploy": text(PackageResources.deploy_mustache),
        "mail": text(PackageResources.mail_mustache),
        "traffic": text(PackageResources.traffic_mustache),
        "requests": text(PackageResources.requests_mustache),
        "backups": text(PackageResources.backups_mustache),
    ]

    /// A template's text without the file's final newline, which editors add: a partial such as
    /// `csrf` is placed inside a line of its includer.
    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
