-- Operator accounts of the admin API (issue 15), their sessions and the audit log. Used in the
-- production database only (the accounts belong to the deployment); the tables exist, empty, in
-- every environment's database because migrations apply to each.
-- Passwords are hashed like user passwords; only the SHA-256 hash of a session token is stored.
CREATE TABLE _sm_operators (
    name TEXT PRIMARY KEY NOT NULL,
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE _sm_operator_sessions (
    token_hash TEXT PRIMARY KEY NOT NULL,
    operator TEXT NOT NULL,
    csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE TABLE _sm_audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    operator TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
);
