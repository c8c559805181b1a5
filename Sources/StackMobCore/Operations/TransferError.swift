/// Why an export directory cannot be imported; each message names the file and, for an object,
/// its line, and is printed as is by the CLI.
public enum TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String)
    case badFile(file: String, String)
    case badLine(file: String, line: Int, String)
    case conflict(String)
    case exists(String)

    public var description: String {
        switch self {
        case .unreadable(let file): "cannot read '\(file)'"
        case .badFile(let file, let problem): "\(file): \(problem)"
        case .badLine(let file, let line, let problem): "\(file) line \(line): \(problem)"
        case .conflict(let problem): "the target environment conflicts with the export: \(problem)"
        case .exists(let path): "'\(path)' already exists and is not empty"
        }
    }
}
