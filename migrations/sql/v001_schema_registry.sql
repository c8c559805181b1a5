-- The registry of user schemas: one row per schema, its definition as JSON.
CREATE TABLE _sm_schemas (
    name TEXT PRIMARY KEY NOT NULL,
    definition TEXT NOT NULL
);
