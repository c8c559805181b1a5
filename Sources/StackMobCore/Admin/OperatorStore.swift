/// Operator accounts, sessions and the audit log of the admin API, kept by the production
/// environment's `OperatorStorage`.
public struct OperatorStore: Sendable {
    let storage: any OperatorStorage
    let hasher: PasswordHasher
    let clock: any ServerClock
    /// How long a session lasts without signing in again.
    public static let sessionLifetimeMilliseconds: Int64 = 12 * 3600 * 1000

    public init(storage: any OperatorStorage, hasher: PasswordHasher, clock: any ServerClock = SystemClock()) {
        self.storage = storage
        self.hasher = hasher
        self.clock = clock
    }

    /// Operator names: lower-case letters, digits, `_`, `-` and `.` (people's names, `ops-olga`,
    /// `j.doe`), starting with a letter or digit (never `.` or `..`), at most 64 bytes, so they
    /// are safe in logs, metric labels and paths.
    public static func isValidName(_ name: String) -> Bool {
        func isLetterOrDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let bytes = name.utf8
        guard (1...64).contains(bytes.count), let first = bytes.first, isLetterOrDigit(first) else { return false }
        return bytes.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    public func add(name: String, password: String) async throws {
        guard Self.isValidName(name) else {
            throw AdminError.badInput(key: "name", "must be lower-case letters, digits, '_', '-' and '.', starting with a letter or digit, at most 64 characters")
        }
        guard password.count >= 8 else { throw AdminError.badInput(key: "password", "must be at least 8 characters long") }
        let hash = try await hasher.hash(password)
        let audit = AuditRecord(at: clock.nowMilliseconds(), operatorName: name, action: "operator.add", detail: ["name": .string(name)])
        try await storage.insertOperator(name: name, passwordHash: hash, audit: audit)
    }

    public func hasOperators() async throws -> Bool {
        try await storage.hasOperators()
    }

    /// A new session for valid credentials; nil otherwise.
    public func signIn(name: String, password: String) async throws -> OperatorSession? {
        // No operator has a name `add` refuses: such a name is not looked up, so that no
        // spelling the database reads differently can stand for another operator's.
        guard Self.isValidName(name), let stored = try await storage.passwordHash(ofOperator: name) else {
            // As slow as a wrong password, so the answer's timing does not tell which names exist.
            await hasher.verifyUnknownLogin(password)
            return nil
        }
        guard await hasher.verify(password, against: stored) else { return nil }
        let token = SessionSecrets.generateToken() + SessionSecrets.generateToken()
        let csrf = SessionSecrets.generateToken()
        let now = clock.nowMilliseconds()
        let expires = now + Self.sessionLifetimeMilliseconds
        try await storage.insertSession(
            tokenHash: SessionSecrets.hash(token), operatorName: name, csrfToken: csrf, expiresAt: expires,
            audit: AuditRecord(at: now, operatorName: name, action: "operator.sign_in", detail: [:]))
        return OperatorSession(operatorName: name, token: token, csrfToken: csrf, expiresAt: expires)
    }

    /// Whether `password` is the operator's: asked again before a backup leaves the server,
    /// since a backup holds password hashes and sessions. As slow for an unknown name.
    public func verifyPassword(name: String, password: String) async throws -> Bool {
        guard Self.isValidName(name), let stored = try await storage.passwordHash(ofOperator: name) else {
            await hasher.verifyUnknownLogin(password)
            return false
        }
        return await hasher.verify(password, against: stored)
    }

    public func session(token: String) async throws -> OperatorSession? {
        try await storage.session(tokenHash: SessionSecrets.hash(token), now: clock.nowMilliseconds())
    }

    public func signOut(token: String, operatorName: String) async throws {
        try await storage.deleteSession(
            tokenHash: SessionSecrets.hash(token),
            audit: AuditRecord(at: clock.nowMilliseconds(), operatorName: operatorName, action: "operator.sign_out", detail: [:]))
    }

    public func audit(_ operatorName: String, action: String, detail: JSONValue) async throws {
        try await storage.appendAudit(AuditRecord(at: clock.nowMilliseconds(), operatorName: operatorName, action: action, detail: detail))
    }

    /// The newest entries first.
    public func auditLog(limit: Int) async throws -> [AuditEntry] {
        try await storage.auditLog(limit: limit)
    }
}
