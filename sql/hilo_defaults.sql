-- Hi/Lo keys: what a column default must be to state a key, and what
-- hilo_create_key() makes from the column, as a serial would.  Each failing
-- statement is followed by \echo :LAST_ERROR_SQLSTATE.
\set VERBOSITY default
CREATE ROLE regress_hd_user;

-- A default whose arguments are not the types the function takes is no key:
-- a name or "char" constant cast to text is skipped, never read as text.
CREATE SEQUENCE hd_s INCREMENT BY 10;
CREATE TABLE hd_name (id bigint DEFAULT hilo_next('hd_s'::regclass, 'pooled'::name));
CREATE TABLE hd_char (id bigint DEFAULT hilo_next('hd_char'),
                      x bigint DEFAULT hilo_next('hd_s'::regclass, 'p'::"char"));
SELECT table_name, column_name, sequence FROM id_gen.hilo_keys
 WHERE table_name::text LIKE 'hd\_%' ORDER BY 1, 2;
SELECT count(*) >= 0 AS listed FROM id_gen.headroom;
SELECT hilo_create_key('hd_char');
INSERT INTO hd_char (id) VALUES (DEFAULT) RETURNING id;
INSERT INTO hd_name DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
-- hilo_next('t'::text): a text constant turned into regclass at each call is
-- no key either (the hint says how to write it).
CREATE TABLE hd_txt (id bigint DEFAULT hilo_next('hd_txt'::text));
SELECT hilo_create_key('hd_txt'); \echo :LAST_ERROR_SQLSTATE

-- The key starts above the column's ids whatever its type's spelling: a
-- domain over integer (the sequence is AS integer), text ids, and refuses
-- types a key cannot serve.
CREATE DOMAIN hd_order_id AS integer;
CREATE TABLE hd_dom (id hd_order_id PRIMARY KEY DEFAULT hilo_next('hd_dom'), v text);
INSERT INTO hd_dom SELECT g, 'old' FROM generate_series(1, 5) g;
SELECT hilo_create_key('hd_dom');
SELECT start_value, data_type FROM pg_sequences WHERE sequencename = 'hd_dom_id_seq';
INSERT INTO hd_dom (v) VALUES ('new') RETURNING id;
CREATE TABLE hd_tx (id text PRIMARY KEY DEFAULT hilo_next_text('hd_tx'), v text);
INSERT INTO hd_tx VALUES (hilo_next_text('hd_tx', 1), 'loaded'), (hilo_next_text('hd_tx', 7), 'loaded'),
                         ('other/900-A', 'not ours'), ('junk', 'not an id');
SELECT hilo_create_key('hd_tx');
INSERT INTO hd_tx (v) VALUES ('new') RETURNING id;
CREATE TABLE hd_num (id numeric PRIMARY KEY DEFAULT hilo_next('hd_num'));
INSERT INTO hd_num VALUES (1);
SELECT hilo_create_key('hd_num'); \echo :LAST_ERROR_SQLSTATE
CREATE TABLE hd_uuid (id uuid, n bigint DEFAULT hilo_next('hd_uuid'));
SELECT hilo_create_key('hd_uuid', 'id'); \echo :LAST_ERROR_SQLSTATE
-- A foreign partition's rows cannot be read: refused.
CREATE FOREIGN DATA WRAPPER hd_fdw;
CREATE SERVER hd_srv FOREIGN DATA WRAPPER hd_fdw;
CREATE TABLE hd_part (id bigint DEFAULT hilo_next('hd_part')) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE hd_part_f PARTITION OF hd_part FOR VALUES FROM (1) TO (100) SERVER hd_srv;
SELECT hilo_create_key('hd_part'); \echo :LAST_ERROR_SQLSTATE

-- A block larger than the column type's range is refused.
CREATE TABLE hd_sm (id smallint PRIMARY KEY DEFAULT hilo_next('hd_sm'));
SELECT hilo_create_key('hd_sm', max_lo => 100000); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('hd_sm', max_lo => 20000);
INSERT INTO hd_sm DEFAULT VALUES RETURNING id;
SELECT status, used_fraction FROM id_gen.headroom WHERE object = 'public.hd_sm';
-- A key whose next block does not fit is exhausted.
INSERT INTO hd_sm DEFAULT VALUES RETURNING id;
SELECT status, used_fraction FROM id_gen.headroom WHERE object = 'public.hd_sm';
INSERT INTO hd_sm SELECT hilo_next('hd_sm') FROM generate_series(1, 20000); \echo :LAST_ERROR_SQLSTATE

-- A session's blocks go as nextval()'s cached values go: setval() in the
-- session that drew (at the start of its statement), ALTER SEQUENCE ...
-- RESTART (every session, a new relfilenode), DISCARD SEQUENCES.
CREATE TABLE hd_sv (id bigint PRIMARY KEY DEFAULT hilo_next('hd_sv'), v text);
SELECT hilo_create_key('hd_sv', max_lo => 1000);
INSERT INTO hd_sv (v) VALUES ('a'), ('b') RETURNING id;
INSERT INTO hd_sv SELECT g, 'loaded' FROM generate_series(10, 20) g;
SELECT setval(pg_get_serial_sequence('hd_sv', 'id'), max(id)) FROM hd_sv;
INSERT INTO hd_sv (v) VALUES ('after') RETURNING id;
SELECT setval('hd_sv_id_seq', 5000, false);
INSERT INTO hd_sv (v) VALUES ('c') RETURNING id;
ALTER SEQUENCE hd_sv_id_seq RESTART WITH 9000;
INSERT INTO hd_sv (v) VALUES ('d'), ('e') RETURNING id;
DISCARD SEQUENCES;
INSERT INTO hd_sv (v) VALUES ('f') RETURNING id;

-- The named column's default must call id_gen's hilo_next() of this table,
-- or be absent (a column being added): a function of the same name planted
-- on the path, a LIKE copy naming another table, are refused.
CREATE SCHEMA hd_planted;
CREATE FUNCTION hd_planted.hilo_next(t text) RETURNS bigint LANGUAGE sql AS $$ SELECT 424242::bigint $$;
CREATE TABLE hd_cap (id bigint PRIMARY KEY DEFAULT hd_planted.hilo_next('hd_cap'));
SELECT hilo_create_key('hd_cap', 'id'); \echo :LAST_ERROR_SQLSTATE
CREATE TABLE hd_like (LIKE hd_sv INCLUDING ALL);
SELECT hilo_create_key('hd_like', 'id'); \echo :LAST_ERROR_SQLSTATE
-- An explicit cast around the call is read through.
CREATE TABLE hd_ic (id integer PRIMARY KEY DEFAULT hilo_next('hd_ic'::regclass)::integer);
SELECT hilo_create_key('hd_ic');
INSERT INTO hd_ic DEFAULT VALUES RETURNING id;

-- Hints that lead out: a column with rows added (ADD COLUMN ... DEFAULT
-- cannot draw before the key exists; add it, make the key, set the default,
-- backfill), a key whose column lost its default.
CREATE TABLE hd_legacy (code text PRIMARY KEY);
INSERT INTO hd_legacy VALUES ('a'), ('b');
ALTER TABLE hd_legacy ADD COLUMN id bigint DEFAULT hilo_next('hd_legacy'); \echo :LAST_ERROR_SQLSTATE
ALTER TABLE hd_legacy ADD COLUMN id bigint;
SELECT hilo_create_key('hd_legacy', 'id');
ALTER TABLE hd_legacy ALTER id SET DEFAULT hilo_next('hd_legacy'::regclass);
UPDATE hd_legacy SET id = DEFAULT;
SELECT code, id FROM hd_legacy ORDER BY id;
CREATE TABLE hd_ap (id bigint PRIMARY KEY DEFAULT hilo_next('hd_ap'));
SELECT hilo_create_key('hd_ap');
ALTER TABLE hd_ap ALTER id DROP DEFAULT;
SELECT * FROM hilo_reserve('hd_ap', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('hd_ap', 'id'); \echo :LAST_ERROR_SQLSTATE
ALTER TABLE hd_ap ALTER id SET DEFAULT hilo_next('hd_ap'::regclass);
SELECT * FROM hilo_reserve('hd_ap', 10);

-- ALTER TABLE ... SET UNLOGGED makes the owned sequence unlogged: draws
-- refuse, and the hint says how to go on.
CREATE TABLE hd_bl (id bigint PRIMARY KEY DEFAULT hilo_next('hd_bl'));
SELECT hilo_create_key('hd_bl');
ALTER TABLE hd_bl SET UNLOGGED;
INSERT INTO hd_bl DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE hd_bl_id_seq SET LOGGED;
INSERT INTO hd_bl DEFAULT VALUES RETURNING id;

-- Privileges as a serial's: writers through a view need USAGE on the key's
-- sequence only; hilo_reserve() needs what nextval() needs on it.
CREATE TABLE hd_acct (id bigint PRIMARY KEY DEFAULT hilo_next('hd_acct'), owner_name text);
SELECT hilo_create_key('hd_acct');
CREATE VIEW hd_open AS SELECT id, owner_name FROM hd_acct;
GRANT INSERT ON hd_open TO regress_hd_user;
SET ROLE regress_hd_user;
INSERT INTO hd_open (owner_name) VALUES ('alice'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT USAGE ON SEQUENCE hd_acct_id_seq TO regress_hd_user;
SET ROLE regress_hd_user;
INSERT INTO hd_open (owner_name) VALUES ('alice');
INSERT INTO hd_acct (owner_name) VALUES ('mallory'); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve('hd_acct', 5);
RESET ROLE;
REVOKE USAGE ON SEQUENCE hd_acct_id_seq FROM regress_hd_user;
GRANT INSERT ON hd_acct TO regress_hd_user;
SET ROLE regress_hd_user;
INSERT INTO hd_acct (owner_name) VALUES ('bob');
SELECT * FROM hilo_reserve('hd_acct', 5); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT id, owner_name FROM hd_acct ORDER BY id;

DROP TABLE hd_name, hd_char, hd_txt, hd_dom, hd_tx, hd_num, hd_uuid, hd_part, hd_sm, hd_sv,
  hd_cap, hd_like, hd_ic, hd_legacy, hd_ap, hd_bl;
DROP VIEW hd_open;
DROP TABLE hd_acct;
DROP SEQUENCE hd_s;
DROP DOMAIN hd_order_id;
DROP SERVER hd_srv;
DROP FOREIGN DATA WRAPPER hd_fdw;
DROP SCHEMA hd_planted CASCADE;
DROP ROLE regress_hd_user;
