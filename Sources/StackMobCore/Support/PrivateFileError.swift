import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file or directory of the server's own (`PrivateFiles`) could not be made: the path and the
/// system's reason. For the operator's log and the command line; the API maps the errors that
/// wrap it to messages without paths.
public struct PrivateFileError: Error, LocalizedError, CustomStringConvertible {
    public let path: String
    public let code: Int32

    public init(path: String, code: Int32) {
        self.path = path
        self.code = code
    }

    public var description: String { "cannot write '\(path)': \(String(cString: strerror(code)))" }
    public var errorDescription: String? { description }
}
