-- Each schema table's number of rows, kept so that a total without a filter adds up a few rows
-- instead of counting the table's (PostgreSQL counts rows one by one). `PostgresRowCounts`
-- installs two statement triggers on each schema table that append the rows each INSERT and
-- DELETE made to `_sm_row_count_changes`, in the writing transaction; the server folds the
-- changes into `_sm_row_counts` every few seconds. Appending, not updating one row per table:
-- updates of one row by many writers would queue on its lock until their commits, and a long
-- transaction (an import) updating it once per insert makes a chain of versions that each
-- update walks again.
CREATE TABLE _sm_row_counts (
    table_name TEXT PRIMARY KEY NOT NULL,
    row_count BIGINT NOT NULL
);

CREATE TABLE _sm_row_count_changes (
    table_name TEXT NOT NULL,
    change BIGINT NOT NULL
);

CREATE INDEX _sm_row_count_changes_table ON _sm_row_count_changes (table_name);

-- The trigger functions name this schema's table outright, whatever `search_path` the session
-- writing the rows has set (an operator's psql), so they are made with the schema's name in
-- their text: a `SET search_path` clause instead cost a third of what a trigger adds to an
-- insert.
DO $$
DECLARE
    body TEXT := 'BEGIN INSERT INTO %1$I._sm_row_count_changes (table_name, change) '
        || 'SELECT TG_TABLE_NAME, %3$s count(*) FROM %2$s HAVING count(*) > 0; RETURN NULL; END';
BEGIN
    EXECUTE format('CREATE FUNCTION %I._sm_count_inserted() RETURNS trigger LANGUAGE plpgsql AS %L',
        current_schema(), format(body, current_schema(), '_sm_new_rows', ''));
    EXECUTE format('CREATE FUNCTION %I._sm_count_deleted() RETURNS trigger LANGUAGE plpgsql AS %L',
        current_schema(), format(body, current_schema(), '_sm_old_rows', '-'));
END
$$;
