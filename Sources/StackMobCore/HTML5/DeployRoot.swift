import Foundation

/// `html5.deploy_root`: the only place a deploy through the admin API may read a directory from.
/// An operator's session is one click away from a browser, so the admin API must not be a way to
/// publish whatever the server can read: the data directory holds the keys and the databases.
public enum DeployRoot {
    /// The directory `requested` names: a path relative to `root`, or an absolute path inside
    /// it, with symbolic links resolved. Refused when it leaves the root, or when it is the data
    /// directory, a parent of it, or inside it.
    public static func resolve(_ requested: String, root: String, dataDirectory: String) throws(HTML5Error) -> String {
        let base = canonical(root)
        let candidate = canonical(requested.hasPrefix("/") ? requested : base + "/" + requested)
        guard encloses(base, candidate), !encloses(candidate, dataDirectory), !encloses(dataDirectory, candidate) else {
            throw .outsideDeployRoot
        }
        return candidate
    }

    /// Whether `parent` is `child` or one of its ancestors, both canonical.
    public static func encloses(_ parent: String, _ child: String) -> Bool {
        let parent = canonical(parent)
        let child = canonical(child)
        return parent == "/" || child == parent || child.hasPrefix(parent + "/")
    }

    /// Absolute, with `.`, `..` and symbolic links resolved (as far as the path exists).
    static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let resolved = URL(fileURLWithPath: absolute).standardizedFileURL.resolvingSymlinksInPath().path
        return resolved.count > 1 && resolved.hasSuffix("/") ? String(resolved.dropLast()) : resolved
    }
}
