/// Every registered token, for `stackmob-server export` (docs/operations.md, "Export and import").
extension TokenRegistry {
    public func allTokens() async throws -> [RegisteredToken] {
        try await store.allTokens()
    }
}
