import Foundation
import NIOCore
import NIOPosix
import StackMobCore
@testable import StackMobHTTPServer
import Testing

/// What is slow on purpose does not run on the connection's event loop (`EventLoopTaskExecutor`).
@Suite("Password hashing off the loop", .tags(.timing))
struct PasswordHashingOffLoopTests {
    @Test("password hashing leaves the loop free: work queued behind it on the loop runs long before the hash is done")
    func hashingOffTheLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        // Ten times the default rounds: a quarter of a second or more on any machine.
        let hasher = PasswordHasher(rounds: 2_100_000)
        let clock = ContinuousClock()
        let start = clock.now
        let (loopFree, hashed) = try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            async let hash = hasher.hash("pw")
            // Let the hash start first.
            try await Task.sleep(for: .milliseconds(20))
            let loopFree = try await loop.submit { clock.now }.get()
            _ = try await hash
            return (loopFree, clock.now)
        }
        #expect(loopFree - start < (hashed - start) / 2, "the loop ran other work while the hash was computed")
    }
}
