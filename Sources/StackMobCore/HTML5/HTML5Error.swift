/// What can go wrong deploying or serving an HTML5 app; messages are safe to show a client or an
/// operator: the paths they name are relative to the deployed directory, the operator's own
/// argument, or the client's request path, never the server's own.
public enum HTML5Error: Error, Sendable, Equatable {
    // Deploy time (the CLI, later the admin API).
    case sourceNotFound(String)
    case sourceNotADirectory(String)
    case unreadableFile(String)
    /// A symbolic link in the source that leads outside the source directory.
    case pathOutsideSource(String)
    /// A socket, device, FIFO or symlinked directory: nothing a browser could be served.
    case unsupportedFile(String)
    case noDeployedVersion(EnvironmentKind)
    case noPreviousVersion(EnvironmentKind)
    case storageFailed(String)
    /// Another deploy, rollback or promote of the environment is running (`HTML5DeployLock`).
    case busy(EnvironmentKind)
    /// A directory deploy through the admin API outside `html5.deploy_root`, or with none set.
    case outsideDeployRoot
    /// An uploaded archive that cannot be deployed.
    case badArchive(SiteArchiveError)
    // Request time.
    /// A request path that is not a plain path inside the site (`..`, `%2F`, a NUL, bad encoding).
    case invalidPath(String)
    case fileNotFound(String)
    case nothingDeployed(EnvironmentKind)
    case methodNotAllowed(String)

    public var message: String {
        switch self {
        case .sourceNotFound(let path): "The directory '\(path)' does not exist"
        case .sourceNotADirectory(let path): "'\(path)' is not a directory"
        case .unreadableFile(let path): "Cannot read '\(path)'"
        case .pathOutsideSource(let path): "'\(path)' is a symbolic link to a path outside the deployed directory"
        case .unsupportedFile(let path): "'\(path)' is not a regular file or directory (symbolic links to directories are not followed)"
        case .noDeployedVersion(let kind): "Nothing is deployed to \(kind.rawValue)"
        case .noPreviousVersion(let kind): "\(kind.rawValue) has no earlier version to roll back to"
        case .storageFailed(let detail): "Could not write the deployed files: \(detail)"
        case .busy(let kind): "Another deploy, rollback or promote of \(kind.rawValue) is running; try again when it has finished"
        case .outsideDeployRoot:
            "Over the admin API only a directory under html5.deploy_root can be deployed (never the data directory); or upload the site as a .tar or .tar.gz"
        case .badArchive(let error): error.message
        case .invalidPath(let path): "Invalid path '\(path)'"
        case .fileNotFound(let path): "No such file: \(path)"
        case .nothingDeployed(let kind): "No HTML5 app is deployed to \(kind.rawValue)"
        case .methodNotAllowed(let method): "\(method) is not allowed here: the HTML5 site serves GET and HEAD"
        }
    }
}
