import Crypto
import _CryptoExtras
import Foundation

/// Salted, slow password hashing: PBKDF2-HMAC-SHA256.
///
/// Stored form: `pbkdf2-sha256$<rounds>$<salt base64>$<hash base64>`, so the round count can be
/// raised later without invalidating existing hashes.
public struct PasswordHasher: Sendable {
    /// OWASP's 2023 floor for PBKDF2-SHA256; about 24 ms per hash on the reference machine.
    public static let defaultRounds = 210_000

    public let rounds: Int
    /// Shared by every hasher of one server: the hashes that run at once, logins first.
    public let gate: HashingGate

    public init(rounds: Int = PasswordHasher.defaultRounds, gate: HashingGate = HashingGate(width: ProcessInfo.processInfo.activeProcessorCount)) {
        self.rounds = rounds
        self.gate = gate
    }

    /// Hashing and checking take about 24 ms of CPU each (`defaultRounds`), and run through the
    /// gate on Swift's shared pool: the request that asks waits without holding its thread, an
    /// HTTP connection's event loop, whose other connections would wait too.
    /// - Throws: `CancellationError` when the task was cancelled before its turn (its request
    ///   timed out, or its client left): nothing was hashed.
    public func hash(_ password: String) async throws(CancellationError) -> String {
        guard let hash = await gate.run(.write, { hashNow(password) }) else { throw CancellationError() }
        return hash
    }

    /// Whether `password` matches `stored`, compared in constant time (see `hash`); false for a
    /// task cancelled before its turn.
    public func verify(_ password: String, against stored: String) async -> Bool {
        await gate.run(.login, { verifyNow(password, against: stored) }) ?? false
    }

    /// Whether `stored` has the form this hasher stores (not whether any password matches it).
    public func isHash(_ stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "pbkdf2-sha256" && Int(parts[1]).map { $0 > 0 } == true
    }

    /// Spends the time of `verify` on a login that does not exist: every login path calls it
    /// where it would have verified the user's hash, so that an unknown login is refused as late
    /// as a known one with a wrong password, and timing does not tell which logins exist.
    public func verifyUnknownLogin(_ password: String) async {
        _ = await verify(password, against: unknownLoginHash)
    }

    /// A stored form with this hasher's rounds whose hash (all zero bytes) no password derives
    /// to in practice.
    private var unknownLoginHash: String {
        "pbkdf2-sha256$\(rounds)$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
    }

    private func hashNow(_ password: String) -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let derived = Self.derive(password, salt: salt, rounds: rounds)
        return "pbkdf2-sha256$\(rounds)$\(Data(salt).base64EncodedString())$\(Data(derived).base64EncodedString())"
    }

    private func verifyNow(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds > 0,
            let salt = Data(base64Encoded: String(parts[2])), let expected = Data(base64Encoded: String(parts[3]))
        else { return false }
        let derived = Self.derive(password, salt: Array(salt), rounds: rounds)
        guard derived.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (lhs, rhs) in zip(derived, expected) { difference |= lhs ^ rhs }
        return difference == 0
    }

    private static func derive(_ password: String, salt: [UInt8], rounds: Int) -> [UInt8] {
        // Only an invalid parameter (never the case for SHA-256 with 32 output bytes) can throw.
        let key = try! KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { Array($0) }
    }
}
