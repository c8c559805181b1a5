-- Role members granted from configuration (`roles`), each recorded once: a member the
-- configuration names is added to its role the first time only, so that a later account
-- registering a deleted member's login is not granted the role again at the next start.
CREATE TABLE _sm_role_grants (
    role TEXT NOT NULL,
    member TEXT NOT NULL,
    granted_at BIGINT NOT NULL,
    PRIMARY KEY (role, member)
);
