import Logging

/// Loads a fixture into a running backend (start-up) and returns an environment to it (reset).
public struct FixtureLoader: Sendable {
    /// Nil: no fixture; a reset then empties the environment.
    public let fixture: Fixture?

    public init(fixture: Fixture?) {
        self.fixture = fixture
    }

    /// Start-up: creates the fixture's operators (kept if they exist) and replaces what each
    /// environment the fixture names holds with its part of the fixture.
    public func load(into backend: Backend, logger: Logger) async throws {
        guard let fixture else { return }
        for (name, password) in fixture.operators.sorted(by: { $0.key < $1.key }) {
            do {
                try await backend.operators.add(name: name, password: password)
            } catch AdminError.conflict(_) {
                // Kept from an earlier start on the same data directory.
            }
        }
        for kind in EnvironmentKind.allCases {
            guard let environment = fixture.environments[kind] else { continue }
            let written = try await backend.environment(kind).datastore.replaceAll(with: environment)
            logger.info("Fixture loaded", metadata: ["sm.environment": "\(kind.rawValue)", "sm.objects": "\(written)"])
        }
    }

    /// Returns `kind` to the fixture while the server serves (one transaction); an environment
    /// the fixture does not name is emptied. Returns the number of objects written.
    public func reset(_ kind: EnvironmentKind, backend: Backend) async throws -> Int {
        try await backend.environment(kind).datastore.replaceAll(with: fixture?.environment(kind) ?? Fixture.Environment())
    }
}
