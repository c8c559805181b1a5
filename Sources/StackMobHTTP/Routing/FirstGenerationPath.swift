import StackMobCore

/// A request of StackMob's first-generation API (`<app>.mob1.stackmob.com`, spoken by the
/// stackmob-ruby gem and the 2011 iOS SDK): the version and the app's name are path segments,
/// `/api/<version>/<app>/<path>` and `/push/<version>/<app>/<endpoint>`, and requests carry no
/// `Accept` version and no API key, only a two-legged OAuth 1.0 signature over that path
/// (docs/guide.md, "First-generation API").
///
/// A path is first-generation only when its first segments are `api` or `push`, a number and
/// the configured app name: every other path routes as it always did, so a schema named `api`
/// keeps its object and relation routes.
struct FirstGenerationPath: Sendable, Equatable {
    /// The environment the version names: 0 development (StackMob's sandbox), 1 and up production.
    let environment: EnvironmentKind
    /// The target as today's API spells it: `/<path>` or `/push/<endpoint>`, with the query.
    let target: String

    /// Nil for any other target.
    init?(received: String, appName: String) {
        let (path, query) = Self.split(received)
        var segments = path.utf8.split(separator: UInt8(ascii: "/"), maxSplits: 4, omittingEmptySubsequences: false).dropFirst()
        guard path.utf8.first == UInt8(ascii: "/"), segments.count >= 3 else { return nil }
        let service = Substring(segments.removeFirst())
        let version = Substring(segments.removeFirst())
        let app = Substring(segments.removeFirst())
        guard service == "api" || service == "push", !version.isEmpty, version.utf8.count <= 9,
            version.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let number = Int(version),
            app == appName
        else { return nil }
        let rest = segments.first.map { String(Substring($0)) } ?? ""
        // The first generation had no endpoint without a name, and none of the server's own
        // (`/_admin`, `/_files`): those keep the one path they have.
        if service == "push" && rest.isEmpty || rest.hasPrefix("_") { return nil }
        environment = EnvironmentKind(apiVersion: number)
        target = (service == "push" ? "/push/" : "/") + rest + (query.map { "?" + $0 } ?? "")
    }

    /// Whether `target` may be first-generation: a check of its first bytes, which every API
    /// request pays, before `init` looks further.
    static func mayBe(_ target: String) -> Bool {
        target.utf8.starts(with: "/api/".utf8) || target.utf8.starts(with: "/push/".utf8)
    }

    private static func split(_ target: String) -> (path: Substring, query: Substring?) {
        guard let mark = target.firstIndex(of: "?") else { return (Substring(target), nil) }
        return (target[..<mark], target[target.index(after: mark)...])
    }
}
