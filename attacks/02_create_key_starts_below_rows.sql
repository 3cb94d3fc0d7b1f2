-- 02: hilo_create_key() starts the key at 1 above existing rows when the column is a domain,
--     text (hilo_next_text) or numeric: the first insert fails with a duplicate key (or, without
--     a unique index, silently duplicates ids).
-- Severity: HIGH (duplicate ids / insert outage). Docs: "START one above the column's largest id";
--     "hilo_next_text ... hilo_create_key('t') finds that column too"; "DROP SEQUENCE ... then
--     hilo_create_key makes a new one above the rows".
-- Cause: key.cpp hilo_column_max() only reads columns whose type is exactly int2/int4/int8
--     (a domain over bigint, text ids and numeric are skipped; foreign-table partitions too).
-- Expected: start_value 6 / first text id tx/3-A / nm id 2; Actual: start 1, 23505 on first insert.
CREATE DOMAIN order_id AS bigint;
CREATE TABLE d (id order_id PRIMARY KEY DEFAULT hilo_next('d'), v text);
INSERT INTO d SELECT g, 'old' FROM generate_series(1,5) g;
SELECT hilo_create_key('d');
SELECT start_value FROM pg_sequences WHERE sequencename = 'd_id_seq';   -- 1 (expected 6)
INSERT INTO d(v) VALUES ('new');          -- ERROR 23505 Key (id)=(1) already exists

CREATE TABLE tx (id text PRIMARY KEY DEFAULT hilo_next_text('tx'), v text);
INSERT INTO tx VALUES (hilo_next_text('tx', 1), 'loaded'), (hilo_next_text('tx', 2), 'loaded');
SELECT hilo_create_key('tx');
INSERT INTO tx(v) VALUES ('new');         -- ERROR 23505 Key (id)=(tx/1-A) already exists

CREATE TABLE nm (id numeric PRIMARY KEY DEFAULT hilo_next('nm'), v text);
INSERT INTO nm VALUES (1, 'x');
SELECT hilo_create_key('nm');
INSERT INTO nm(v) VALUES ('new');         -- ERROR 23505 Key (id)=(1) already exists
-- (also: a domain over integer gets an AS bigint sequence: exhaustion is "integer out of range"
--  and id_gen.headroom measures against bigint.)
