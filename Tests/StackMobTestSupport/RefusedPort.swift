#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port on which every connection is refused, for as long as this value lives.
///
/// Binding a port and closing it again is not enough: the tests run in parallel, and the next
/// server that asks for port 0 may well get that port back and answer in the provider's place.
/// Here the socket stays bound but never listens: the kernel refuses connections to it, and,
/// because it is bound without `SO_REUSEADDR`, no other socket can take the port meanwhile.
public final class RefusedPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw Failure(operation: "bind", code: code)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// Runs `body` with a refused port that stays reserved until `body` returns.
    public static func with<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        let reserved = try RefusedPort()
        // Without this the port could be released after its last use, before `body` connects.
        defer { withExtendedLifetime(reserved) {} }
        return try await body(reserved.port)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var operation: String
        public var code: Int32
        public var description: String { "\(operation) failed: errno \(code)" }
    }
}
