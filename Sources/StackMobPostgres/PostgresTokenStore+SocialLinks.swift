import PostgresNIO
import StackMobCore

/// Social accounts linked to users (PROTOCOL §9).
extension PostgresTokenStore {
    public func socialLink(_ provider: SocialProvider, userSchema: String, accountID: String) async throws -> SocialLink? {
        try await run(
            "SELECT \(Self.linkColumns) FROM _sm_social_links WHERE provider = $1 AND user_schema = $2 AND account_id = $3",
            [.text(provider.rawValue), .text(userSchema), .text(accountID)]
        ).first.flatMap(Self.socialLink)
    }

    public func socialLink(_ provider: SocialProvider, userSchema: String, userID: String) async throws -> SocialLink? {
        try await run(
            "SELECT \(Self.linkColumns) FROM _sm_social_links WHERE provider = $1 AND user_schema = $2 AND user_id = $3",
            [.text(provider.rawValue), .text(userSchema), .text(userID)]
        ).first.flatMap(Self.socialLink)
    }

    public func link(_ link: SocialLink, at time: Int64) async throws {
        do {
            try await write { connection in
                let owner = try await database.execute(
                    PostgresStatement(
                        "SELECT user_id FROM _sm_social_links WHERE provider = $1 AND user_schema = $2 AND account_id = $3 FOR UPDATE",
                        [.text(link.provider.rawValue), .text(link.userSchema), .text(link.accountID)]), on: connection
                ).first?.decode(String.self)
                if let owner, owner != link.userID { throw SocialError.linkedToAnotherUser(link.provider) }
                // One account per provider and user: linking another one replaces it.
                try await database.execute(
                    PostgresStatement(
                        "DELETE FROM _sm_social_links WHERE provider = $1 AND user_schema = $2 AND user_id = $3",
                        [.text(link.provider.rawValue), .text(link.userSchema), .text(link.userID)]), on: connection)
                try await database.execute(
                    PostgresStatement(
                        """
                        INSERT INTO _sm_social_links (provider, user_schema, account_id, user_id, token, token_secret, linked_at)
                        VALUES ($1, $2, $3, $4, $5, $6, $7)
                        """,
                        [
                            .text(link.provider.rawValue), .text(link.userSchema), .text(link.accountID), .text(link.userID),
                            .optionalText(link.token), .optionalText(link.tokenSecret), .integer(time),
                        ]), on: connection)
            }
        } catch where PostgresErrors.isUniqueViolation(error) {
            // Another instance linked the account in between.
            throw SocialError.linkedToAnotherUser(link.provider)
        }
    }

    public func unlink(_ provider: SocialProvider, userSchema: String, userID: String) async throws -> Bool {
        try await !run(
            "DELETE FROM _sm_social_links WHERE provider = $1 AND user_schema = $2 AND user_id = $3 RETURNING 1",
            [.text(provider.rawValue), .text(userSchema), .text(userID)]
        ).isEmpty
    }

    private static let linkColumns = "provider, user_schema, account_id, user_id, token, token_secret"

    private static func socialLink(_ row: PostgresRow) -> SocialLink? {
        guard let (providerName, userSchema, accountID, userID, token, tokenSecret) =
            try? row.decode((String, String, String, String, String?, String?).self),
            let provider = SocialProvider(rawValue: providerName)
        else { return nil }
        return SocialLink(provider: provider, userSchema: userSchema, accountID: accountID, userID: userID, token: token, tokenSecret: tokenSecret)
    }
}
