/// The internal-table migrations, in the order they are applied.
///
/// Each is a SQL file in `migrations/sql/`, embedded into the binary at build time (see
/// Package.swift). To add one: write `sql/vNNN_what.sql`, list it in Package.swift's `resources`,
/// and append it here. Never edit or reorder a migration that has shipped.
public enum InternalMigrations {
    public static let all: [(name: String, sql: String)] = [
        ("v001_schema_registry", text(PackageResources.v001_schema_registry_sql)),
        ("v002_users_tokens", text(PackageResources.v002_users_tokens_sql)),
        ("v003_user_email_fields", text(PackageResources.v003_user_email_fields_sql)),
        ("v004_cookie_sessions", text(PackageResources.v004_cookie_sessions_sql)),
        ("v005_push", text(PackageResources.v005_push_sql)),
        ("v006_social", text(PackageResources.v006_social_sql)),
        ("v007_schema_settings", text(PackageResources.v007_schema_settings_sql)),
        ("v008_operators", text(PackageResources.v008_operators_sql)),
        ("v009_role_grants", text(PackageResources.v009_role_grants_sql)),
    ]

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

/// The PostgreSQL engine's migrations (`migrations/postgresql/`), applied in each environment's
/// schema. The same rules as `InternalMigrations`; the two engines' lists are independent.
public enum PostgreSQLMigrations {
    public static let all: [(name: String, sql: String)] = [
        ("v001_internal_tables", String(decoding: PackageResources.v001_internal_tables_sql, as: UTF8.self)),
        ("v002_role_grants", String(decoding: PackageResources.v002_role_grants_sql, as: UTF8.self)),
        ("v003_row_counts", String(decoding: PackageResources.v003_row_counts_sql, as: UTF8.self)),
    ]
}
