import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Holds an HTML5 environment's deploy lock (`<data_dir>/html5/<env>/.lock`) as another process's
/// deploy would, for the duration of `body`.
public enum DeployLockHolder {
    public struct AlreadyHeld: Error {}

    public static func holding(_ environment: String, _ body: () async throws -> Void) async throws {
        try FileManager.default.createDirectory(atPath: environment, withIntermediateDirectories: true)
        let descriptor = open(environment + "/.lock", O_RDONLY | O_CREAT, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw AlreadyHeld() }
        try await body()
    }
}
