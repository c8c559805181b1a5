-- Schema settings set by a deploy or the admin API (issue 15), per schema: the permissions
-- (JSON {"create": level, "read": …}, null = not set: open, or what the configuration says) and
-- the declared indexes (JSON list of lists of field names), so that an index declared before its
-- fields exist is created when they do, after a restart too.
CREATE TABLE _sm_schema_settings (
    schema TEXT PRIMARY KEY NOT NULL,
    permissions TEXT,
    indexes TEXT NOT NULL DEFAULT '[]'
);
