-- The PostgreSQL engine's internal tables, in the environment's own schema (search_path).
-- The same tables as the SQLite migrations v001–v008, in one migration: a new engine starts
-- from the current shape. Times are milliseconds since the epoch (BIGINT).

CREATE TABLE _sm_schemas (
    name TEXT COLLATE "C" PRIMARY KEY NOT NULL,
    definition TEXT NOT NULL
);

-- Bumped by every schema change, so that other instances see it before their next request.
CREATE TABLE _sm_schema_version (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    version BIGINT NOT NULL
);
INSERT INTO _sm_schema_version (singleton, version) VALUES (TRUE, 0);

CREATE TABLE _sm_schema_settings (
    schema TEXT PRIMARY KEY NOT NULL,
    permissions TEXT,
    indexes TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE _sm_tokens (
    access_hash TEXT PRIMARY KEY NOT NULL,
    refresh_hash TEXT NOT NULL UNIQUE,
    user_schema TEXT NOT NULL,
    user_id TEXT NOT NULL,
    sealed_mac_key BYTEA NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX _sm_tokens_user ON _sm_tokens (user_schema, user_id);
CREATE INDEX _sm_tokens_expiry ON _sm_tokens (expires_at);

CREATE TABLE _sm_temporary_passwords (
    user_schema TEXT NOT NULL,
    user_id TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (user_schema, user_id)
);

CREATE TABLE _sm_mail_outbox (
    id BIGSERIAL PRIMARY KEY,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE _sm_user_email_fields (
    user_schema TEXT PRIMARY KEY NOT NULL,
    field TEXT NOT NULL
);

CREATE TABLE _sm_cookie_sessions (
    session_hash TEXT PRIMARY KEY NOT NULL,
    user_schema TEXT NOT NULL,
    user_id TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX _sm_cookie_sessions_user ON _sm_cookie_sessions (user_schema, user_id);

CREATE TABLE _sm_push_tokens (
    type TEXT NOT NULL,
    token TEXT NOT NULL,
    user_id TEXT,
    registered_at BIGINT NOT NULL,
    PRIMARY KEY (type, token)
);
CREATE INDEX _sm_push_tokens_user ON _sm_push_tokens (user_id);

CREATE TABLE _sm_push_outbox (
    id BIGSERIAL PRIMARY KEY,
    notification_id TEXT NOT NULL,
    type TEXT NOT NULL,
    token TEXT NOT NULL,
    user_id TEXT,
    payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    last_error TEXT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX _sm_push_outbox_due ON _sm_push_outbox (state, next_attempt_at);

CREATE TABLE _sm_push_expired (
    type TEXT NOT NULL,
    token TEXT NOT NULL,
    user_id TEXT,
    registered_at BIGINT NOT NULL,
    expired_at BIGINT NOT NULL,
    PRIMARY KEY (type, token)
);

CREATE TABLE _sm_social_links (
    provider TEXT NOT NULL,
    user_schema TEXT NOT NULL,
    account_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    token TEXT,
    token_secret TEXT,
    linked_at BIGINT NOT NULL,
    PRIMARY KEY (provider, user_schema, account_id),
    UNIQUE (provider, user_schema, user_id)
);

CREATE TABLE _sm_operators (
    name TEXT PRIMARY KEY NOT NULL,
    password_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE _sm_operator_sessions (
    token_hash TEXT PRIMARY KEY NOT NULL,
    operator TEXT NOT NULL,
    csrf_token TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE TABLE _sm_audit_log (
    id BIGSERIAL PRIMARY KEY,
    at BIGINT NOT NULL,
    operator TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
);

-- MAC and OAuth 1.0 requests already seen, shared by every instance (replays are refused).
CREATE TABLE _sm_nonces (
    key TEXT PRIMARY KEY NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX _sm_nonces_expiry ON _sm_nonces (expires_at);

-- Great-circle distance in radians between two points given in degrees (PROTOCOL §5.8), the
-- same formula as the SQLite engine's sm_distance.
CREATE FUNCTION sm_distance(lat1 DOUBLE PRECISION, lon1 DOUBLE PRECISION, lat2 DOUBLE PRECISION, lon2 DOUBLE PRECISION)
RETURNS DOUBLE PRECISION LANGUAGE SQL IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT 2 * asin(least(1, sqrt(
        power(sin(radians(lat2 - lat1) / 2), 2)
        + cos(radians(lat1)) * cos(radians(lat2)) * power(sin(radians(lon2 - lon1) / 2), 2))))
$$;
