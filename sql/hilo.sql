-- Hi/Lo keys: a table's key is the sequence OWNED BY the column whose
-- default calls hilo_next('<that table>'), as a serial's; the sequence
-- counts ids (value v gives v - INCREMENT + 1 .. v).
-- (Errors and bad input are in hilo_errors.sql, roles in hilo_roles.sql.)

-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE.

-- The default is written as for a serial; hilo_create_key() makes the
-- sequence (the migration's explicit step; no event trigger does it).
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), note text);
INSERT INTO orders (note) VALUES ('before the key'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('orders');
-- The default stays exactly as written: nothing rewrites it.
SELECT pg_get_expr(adbin, adrelid) AS default_as_written FROM pg_attrdef WHERE adrelid = 'orders'::regclass;
SELECT pg_get_serial_sequence('orders', 'id');
SELECT data_type, start_value, min_value, max_value, increment_by, cycle, cache_size
  FROM pg_sequences WHERE sequencename = 'orders_id_seq';
SELECT relpersistence, pg_get_userbyid(relowner) = current_user AS owned_by_table_owner
  FROM pg_class WHERE oid = 'orders_id_seq'::regclass;
-- The first value (START, before the sequence was ever called) is the one
-- id 1; each later value v gives v-999 .. v: ids 1..2500 in one session.
INSERT INTO orders (note) SELECT 'n' || g FROM generate_series(1, 2500) g;
SELECT min(id), max(id), count(*), count(DISTINCT id) FROM orders;
SELECT last_value FROM orders_id_seq;
SELECT * FROM id_gen.hilo_keys;

-- The fast path touches no table, sequence or lock: with a block in hand,
-- a transaction drawing ids holds no lock on the table or the sequence.
SELECT hilo_next('orders') AS draws_nothing_new;
BEGIN;
SELECT count(hilo_next('orders')) FROM generate_series(1, 400);
SELECT count(*) AS locks_taken FROM pg_locks
 WHERE pid = pg_backend_pid() AND locktype = 'relation'
   AND relation IN ('orders'::regclass, 'orders_id_seq'::regclass);
COMMIT;

-- A new session draws a new block: ids never repeat across backends.
\c
SELECT hilo_next('orders') AS after_reconnect;

-- START above the rows: hilo_create_key() reads the column's largest id.
CREATE TABLE loaded (id bigint PRIMARY KEY, note text);
INSERT INTO loaded SELECT g, 'old' FROM generate_series(1, 50) g;
ALTER TABLE loaded ALTER id SET DEFAULT hilo_next('loaded');
SELECT hilo_create_key('loaded', 'id', 10);
INSERT INTO loaded (note) SELECT 'new' FROM generate_series(1, 12);
SELECT min(id), max(id), count(*) FROM loaded WHERE note = 'new';

-- RESTART WITH max + 1 means "the next id is max + 1", as for a serial, and
-- the block this session held is dropped (a new relfilenode), as nextval()
-- drops its cached values.
INSERT INTO loaded VALUES (5000, 'explicit');
ALTER SEQUENCE loaded_id_seq RESTART WITH 5001;
INSERT INTO loaded (note) VALUES ('after restart') RETURNING id;
INSERT INTO loaded (note) SELECT 'more' FROM generate_series(1, 10) RETURNING id;

-- setval(seq, max(id)) after a bulk load: the next block starts above it.
INSERT INTO loaded VALUES (9000, 'bulk');
SELECT setval(pg_get_serial_sequence('loaded', 'id'), max(id)) FROM loaded;
\c
INSERT INTO loaded (note) VALUES ('after setval') RETURNING id;

-- The block size is INCREMENT BY: ALTER SEQUENCE changes it (and ROLLBACK
-- undoes it).  Blocks drawn before stay below every later one.
ALTER SEQUENCE loaded_id_seq INCREMENT BY 2;
\c
SELECT hilo_next('loaded') AS a, hilo_next('loaded') AS b, hilo_next('loaded') AS c;
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM loaded;

-- ROLLBACK after ALTER SEQUENCE ... INCREMENT with draws: the blocks drawn
-- from the rolled-back relfilenode are dropped, the next come from the
-- sequence as the rollback left it.
ALTER SEQUENCE loaded_id_seq INCREMENT BY 100;
SELECT hilo_next('loaded') AS held_before;
BEGIN;
ALTER SEQUENCE loaded_id_seq INCREMENT BY 5;
SELECT hilo_next('loaded') AS drawn_in_the_changing_transaction;
ROLLBACK;
SELECT increment_by, last_value FROM pg_sequences WHERE sequencename = 'loaded_id_seq';
-- The same first id again: it was handed out only in the rolled-back
-- transaction, as nextval()'s values after an ALTER SEQUENCE are.
SELECT hilo_next('loaded') AS after_rollback;
-- The same in a subtransaction.
BEGIN;
SAVEPOINT s;
ALTER SEQUENCE loaded_id_seq INCREMENT BY 7;
SELECT hilo_next('loaded') > 0 AS drawn_in_savepoint;
ROLLBACK TO SAVEPOINT s;
SELECT hilo_next('loaded') AS after_rollback_to_savepoint;
COMMIT;

-- An integer column gets an integer sequence: its end is the sequence's
-- own error, and id_gen.headroom sees it.
CREATE TABLE small (id integer PRIMARY KEY DEFAULT hilo_next('small'));
SELECT hilo_create_key('small', max_lo => 3);
SELECT data_type, max_value FROM pg_sequences WHERE sequencename = 'small_id_seq';
SELECT hilo_next('small') FROM generate_series(1, 5);
SELECT setval('small_id_seq', 2147483640);
\c
SELECT hilo_next('small') FROM generate_series(1, 6);
SELECT hilo_next('small'); \echo :LAST_ERROR_SQLSTATE
SELECT status, round(used_fraction::numeric, 4) AS used FROM id_gen.headroom
 WHERE generator = 'hilo' AND object = 'public.small';

-- An unlogged table's key is a logged sequence (a crash would reset an
-- unlogged one), and a key whose sequence is unlogged draws nothing.
CREATE UNLOGGED TABLE ut (id bigint DEFAULT hilo_next('ut'));
SELECT hilo_create_key('ut');
SELECT relpersistence FROM pg_class WHERE oid = 'ut_id_seq'::regclass;
CREATE TABLE logged_copy (id bigint DEFAULT hilo_next('ut'));
INSERT INTO logged_copy DEFAULT VALUES;
ALTER SEQUENCE ut_id_seq SET UNLOGGED;
\c
INSERT INTO logged_copy DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE ut_id_seq SET LOGGED;

-- DROP DEFAULT, then SET DEFAULT again (two statements, or under
-- session_replication_role = replica): the key is the sequence, which
-- neither touches.  Without the default, a draw says why.
CREATE TABLE k (id bigint PRIMARY KEY DEFAULT hilo_next('k'), n int);
SELECT hilo_create_key('k', max_lo => 10);
INSERT INTO k (n) SELECT g FROM generate_series(1, 15) g;
ALTER TABLE k ALTER id DROP DEFAULT;
SELECT hilo_next('k'); \echo :LAST_ERROR_SQLSTATE
ALTER TABLE k ALTER id SET DEFAULT hilo_next('k');
SET session_replication_role = replica;
ALTER TABLE k ALTER id SET DEFAULT hilo_next('k');
RESET session_replication_role;
INSERT INTO k (n) SELECT g FROM generate_series(1, 15) g;
SELECT count(*), count(DISTINCT id), max(id) FROM k;

-- OWNED BY swapped while this backend knows the key: the next ids come
-- from the sequence the column owns now (its START first).
SELECT hilo_next('k') AS memo_warm;
CREATE SEQUENCE k_id_seq2 START 1000 INCREMENT 10;
ALTER SEQUENCE k_id_seq OWNED BY NONE;
ALTER SEQUENCE k_id_seq2 OWNED BY k.id;
SELECT hilo_next('k') AS a, hilo_next('k') AS b;
\c
SELECT hilo_next('k') AS from_new_sequence;
-- A column owning two sequences is refused.
ALTER SEQUENCE k_id_seq OWNED BY k.id;
\c
SELECT hilo_next('k'); \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE k_id_seq OWNED BY NONE;

-- Inheritance: a child's copied default names the parent, so the child's
-- rows draw from the parent's key; ALTER TABLE recursing into the child
-- changes no key.
CREATE TABLE parent (id bigint PRIMARY KEY DEFAULT hilo_next('parent'), n int);
SELECT hilo_create_key('parent', max_lo => 5);
CREATE TABLE child () INHERITS (parent);
INSERT INTO parent (n) VALUES (1), (2);
INSERT INTO child (n) VALUES (3), (4);
ALTER TABLE parent ALTER id SET DEFAULT hilo_next('parent');
INSERT INTO child (n) VALUES (5);
INSERT INTO parent (n) VALUES (6);
SELECT count(*), count(DISTINCT id) FROM parent;

-- Inserts through a view use the table's default.
CREATE VIEW orders_view AS SELECT * FROM orders;
INSERT INTO orders_view (note) VALUES ('via view') RETURNING id > 2500 AS drawn;

-- TRUNCATE ... RESTART IDENTITY restarts the key as a serial's (at its
-- START), dropping the block this session held.
CREATE TABLE tr (id bigint DEFAULT hilo_next('tr'));
SELECT hilo_create_key('tr', max_lo => 100);
INSERT INTO tr SELECT FROM generate_series(1, 3);
TRUNCATE tr RESTART IDENTITY;
INSERT INTO tr DEFAULT VALUES RETURNING id;

-- A serial converted to Hi/Lo: its sequence is the key, INCREMENT 1 until raised.
CREATE TABLE ser (id bigserial PRIMARY KEY, n int);
INSERT INTO ser (n) VALUES (1), (2);
ALTER TABLE ser ALTER id SET DEFAULT hilo_next('ser');
ALTER SEQUENCE ser_id_seq INCREMENT BY 1000;
INSERT INTO ser (n) VALUES (3), (4) RETURNING id;

-- CACHE k: each sequence access gives k blocks; ids stay unique.
CREATE TABLE cached (id bigint DEFAULT hilo_next('cached'));
SELECT hilo_create_key('cached', max_lo => 10);
ALTER SEQUENCE cached_id_seq CACHE 4;
INSERT INTO cached SELECT FROM generate_series(1, 25);
\c
ALTER SEQUENCE cached_id_seq INCREMENT BY 3;
INSERT INTO cached SELECT FROM generate_series(1, 25);
SELECT count(*), count(DISTINCT id) FROM cached;

-- An ORM's sequence is named in the call, as nextval('app_seq') names it:
-- EF Core's pooled_lo hands out v .. v+INCREMENT-1 for each value v.
CREATE SEQUENCE app_seq INCREMENT BY 10;
CREATE TABLE ef (id bigint PRIMARY KEY DEFAULT hilo_next('app_seq', 'pooled_lo'), n int);
SELECT nextval('app_seq') AS ef_core_took;
INSERT INTO ef (n) SELECT g FROM generate_series(1, 12) g;
SELECT min(id), max(id) FROM ef;
-- NHibernate's legacy: hi * (max_lo + 1) .. + max_lo.
CREATE SEQUENCE nh_seq;
SELECT hilo_next('nh_seq', 'legacy', 9) AS a, hilo_next('nh_seq', 'legacy', 9) AS b;
-- The sequence is named by OID: a move to another schema changes nothing.
CREATE SCHEMA app;
ALTER SEQUENCE app_seq SET SCHEMA app;
ALTER TABLE ef SET SCHEMA app;
INSERT INTO app.ef (n) SELECT g FROM generate_series(1, 10) g;
SELECT count(*), count(DISTINCT id) FROM app.ef;
SELECT table_name, strategy, max_lo, sequence, own_sequence, column_name FROM id_gen.hilo_keys ORDER BY 1::text;

-- Nothing of the removed machinery is left: no event trigger, no function
-- that rewrites a default.
SELECT count(*) AS event_triggers FROM pg_event_trigger WHERE evtname LIKE 'id_gen_hilo%';
SELECT proname FROM pg_proc WHERE proname IN ('hilo_set_max_lo', 'hilo_bind', 'hilo_set_adaptive',
       'hilo_set_floor', 'hilo_bind_table', 'hilo_hi_row', 'hilo_return');

DROP TABLE orders, loaded, small, ut, logged_copy, k, parent, child, tr, ser, cached, app.ef CASCADE;
DROP SEQUENCE k_id_seq, nh_seq, app.app_seq;
DROP SCHEMA app;
