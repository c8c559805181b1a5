-- Each schema table's number of rows, kept by statement triggers that `PostgresRowCounts`
-- installs on the table, so that a total without a filter adds up a few rows instead of
-- counting the table's (PostgreSQL counts rows one by one). A table has several slots, chosen by
-- the writing connection's backend, so that writes to one table from several connections
-- update different rows rather than all waiting on one row's lock until their commits.
-- `search_path` is fixed to the environment's schema: the triggers write this schema's table
-- whatever the session writing the rows has set.
CREATE TABLE _sm_row_counts (
    table_name TEXT NOT NULL,
    slot INTEGER NOT NULL,
    row_count BIGINT NOT NULL,
    PRIMARY KEY (table_name, slot)
);

CREATE FUNCTION _sm_count_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO _sm_row_counts AS counts (table_name, slot, row_count)
    SELECT TG_TABLE_NAME, pg_backend_pid() % 16, count(*) FROM _sm_new_rows HAVING count(*) > 0
    ON CONFLICT (table_name, slot) DO UPDATE SET row_count = counts.row_count + excluded.row_count;
    RETURN NULL;
END
$$;

CREATE FUNCTION _sm_count_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO _sm_row_counts AS counts (table_name, slot, row_count)
    SELECT TG_TABLE_NAME, pg_backend_pid() % 16, -count(*) FROM _sm_old_rows HAVING count(*) > 0
    ON CONFLICT (table_name, slot) DO UPDATE SET row_count = counts.row_count + excluded.row_count;
    RETURN NULL;
END
$$;
