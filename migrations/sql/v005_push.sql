-- Push (PROTOCOL §11): the token registry, the delivery outbox and the expired-token list.
-- Types are stored lower-case (D12); a token is unique per type.
CREATE TABLE _sm_push_tokens (
    type TEXT NOT NULL,
    token TEXT NOT NULL,
    user_id TEXT,
    registered_at INTEGER NOT NULL,
    PRIMARY KEY (type, token)
);
CREATE INDEX _sm_push_tokens_user ON _sm_push_tokens (user_id);

-- One row per (notification, token). A send writes all of its rows in the transaction that
-- accepts it; the delivery service moves each row from 'pending' to 'delivered', 'expired'
-- (the sender called the token invalid) or 'failed' (attempts exhausted).
CREATE TABLE _sm_push_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    notification_id TEXT NOT NULL,
    type TEXT NOT NULL,
    token TEXT NOT NULL,
    user_id TEXT,
    payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    last_error TEXT,
    created_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE INDEX _sm_push_outbox_due ON _sm_push_outbox (state, next_attempt_at);

-- Tokens a sender reported as invalid, until a client reads them with clear = true.
CREATE TABLE _sm_push_expired (
    type TEXT NOT NULL,
    token TEXT NOT NULL,
    user_id TEXT,
    registered_at INTEGER NOT NULL,
    expired_at INTEGER NOT NULL,
    PRIMARY KEY (type, token)
);
