-- 11: the documented order ("write the default as for a serial, then hilo_create_key") cannot
--     add a Hi/Lo id column to a table that has rows, and the hints lead to a dead end:
--     ADD COLUMN ... DEFAULT hilo_next('t') evaluates the default for every existing row before any
--     key can exist; its hint says hilo_create_key('t'), which says "name the column", which does
--     not exist. (ADD COLUMN id serial / bigserial does this in one step.)
-- Severity: MEDIUM (common migration; no hint leads out; the way out - ADD COLUMN without default,
--     hilo_create_key('t','id'), SET DEFAULT, UPDATE ... SET id = DEFAULT - is not documented).
CREATE TABLE legacy (code text PRIMARY KEY);
INSERT INTO legacy VALUES ('a'), ('b');
ALTER TABLE legacy ADD COLUMN id bigint DEFAULT hilo_next('legacy');
--   ERROR 55000 table legacy has no Hi/Lo key
--   DETAIL: Column id defaults to hilo_next() but owns no sequence.
--   HINT: As the table's owner: SELECT hilo_create_key('legacy'); ...
SELECT hilo_create_key('legacy');         -- 22023 no column ... HINT: hilo_create_key('legacy', 'id')
SELECT hilo_create_key('legacy', 'id');   -- 42703 column "id" of table legacy does not exist
