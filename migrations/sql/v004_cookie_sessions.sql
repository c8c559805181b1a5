-- Legacy OAuth 1.0 cookie sessions (PROTOCOL §8.9): only the SHA-256 hash of the cookie value
-- is stored, so the database alone yields no usable cookie.
CREATE TABLE _sm_cookie_sessions (
    session_hash TEXT PRIMARY KEY NOT NULL,
    user_schema TEXT NOT NULL,
    user_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX _sm_cookie_sessions_user ON _sm_cookie_sessions (user_schema, user_id);
