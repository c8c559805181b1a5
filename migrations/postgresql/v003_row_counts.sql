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
-- their text: a `SET search_path` clause instead is paid at every insert (docs/benchmarks.md,
-- "PostgreSQL's totals").
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

-- A table's number of rows: its count and the changes not yet folded while both triggers are on
-- it and enabled and its count is there, else a count of the table (a table created by an
-- earlier version, or whose triggers an operator disabled). A function, whose statements
-- PostgreSQL plans once per connection, where an expression inside each page's statement is
-- planned with it every time (docs/benchmarks.md, "PostgreSQL's totals").
-- STABLE: it reads in the calling statement's snapshot.
CREATE FUNCTION _sm_row_total(counted TEXT) RETURNS BIGINT LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
    total BIGINT;
BEGIN
    IF (SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(quote_ident(counted))
        AND tgname IN ('_sm_count_inserted', '_sm_count_deleted') AND tgenabled <> 'D') = 2 THEN
        SELECT counts.row_count
               + COALESCE((SELECT sum(changes.change) FROM _sm_row_count_changes AS changes WHERE changes.table_name = counted), 0)
            INTO total FROM _sm_row_counts AS counts WHERE counts.table_name = counted;
        IF FOUND THEN
            RETURN total;
        END IF;
    END IF;
    EXECUTE format('SELECT count(*) FROM %I', counted) INTO total;
    RETURN total;
END
$$;
