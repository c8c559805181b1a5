/// Every registered token, for `stackmob-server export` (issue 17).
extension TokenRegistry {
    public func allTokens() async throws -> [RegisteredToken] {
        try await store.allTokens()
    }
}
