-- Social login (PROTOCOL §9): provider accounts linked to users. One account links to at most
-- one user of a user schema, and a user to at most one account of each provider. The token
-- and secret let user info and posts call the provider later; they are never returned.
CREATE TABLE _sm_social_links (
    provider TEXT NOT NULL,
    user_schema TEXT NOT NULL,
    account_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    token TEXT,
    token_secret TEXT,
    linked_at INTEGER NOT NULL,
    PRIMARY KEY (provider, user_schema, account_id),
    UNIQUE (provider, user_schema, user_id)
);
CREATE INDEX _sm_social_links_user ON _sm_social_links (user_schema, user_id);
