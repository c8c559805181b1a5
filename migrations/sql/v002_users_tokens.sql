-- Login sessions (PROTOCOL §8.2–8.5): only SHA-256 hashes of the access and refresh tokens are
-- stored; the MAC key is sealed (AES-GCM) under a key derived from the access token itself, so
-- the database alone yields no usable credential.
CREATE TABLE _sm_tokens (
    access_hash TEXT PRIMARY KEY NOT NULL,
    refresh_hash TEXT NOT NULL UNIQUE,
    user_schema TEXT NOT NULL,
    user_id TEXT NOT NULL,
    sealed_mac_key BLOB NOT NULL,
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX _sm_tokens_user ON _sm_tokens (user_schema, user_id);

-- Temporary passwords of forgotPassword (§8.6): PBKDF2 hashes, valid until expires_at.
CREATE TABLE _sm_temporary_passwords (
    user_schema TEXT NOT NULL,
    user_id TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (user_schema, user_id)
);

-- Mail that was not sent over SMTP: a developer reads it with `stackmob-server outbox`.
CREATE TABLE _sm_mail_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
