-- Hi/Lo keys: hilo_next(table), the key its table's DDL makes,
-- hilo_set_max_lo(), hilo_bind().
-- (Errors and bad input are in hilo_errors.sql.)

-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE:
-- the output shows the error as a client sees it (message, detail, hint)
-- and then its SQLSTATE.  Where a message holds a name that varies from
-- run to run, VERBOSITY sqlstate prints only the SQLSTATE and the message
-- is shown masked.

-- A key is made by the table owner's DDL: an event trigger turns a table's
-- DEFAULT hilo_next('<that table>') into its key, a sequence OWNED BY the
-- column (as serial's), with id_gen.hilo_max_lo ids per block (default
-- 1000), and writes the key into the default.  Ids start at 1.
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), note text);
\d orders
INSERT INTO orders (note) SELECT 'n' || g FROM generate_series(1, 2500) g;
SELECT min(id), max(id), count(*) FROM orders;
SHOW id_gen.hilo_max_lo;
-- The sequence belongs to the column: same schema, same owner, no grants.
SELECT pg_get_serial_sequence('orders', 'id') AS owned_sequence,
       pg_get_userbyid(relowner) = current_user AS owned_by_table_owner, relacl
  FROM pg_class WHERE oid = 'orders_id_seq'::regclass;
-- id_gen.hilo_keys shows where each key stands (last hi drawn, highest id
-- any backend may hold), read from the catalog.
SELECT * FROM id_gen.hilo_keys;
-- The extension keeps no table of keys: nothing of a key is outside its
-- table's default and sequence.
SELECT count(*) AS extension_tables FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')
   AND d.deptype = 'e' AND c.relkind = 'r' AND c.relname LIKE 'hilo%';

-- A small block, chosen before the key is made through the setting.
SET id_gen.hilo_max_lo = 3;
CREATE TABLE small (id bigint PRIMARY KEY DEFAULT hilo_next('small'));
RESET id_gen.hilo_max_lo;
SELECT hilo_next('small') FROM generate_series(1, 7);
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'small'::regclass;

-- The fast path touches no table, sequence or lock: with a block in hand,
-- a transaction drawing ids holds no lock on the table or the sequence.
CREATE TABLE quiet (id bigint DEFAULT hilo_next('quiet'));
SELECT hilo_next('quiet') AS draws_a_block;
BEGIN;
SELECT count(hilo_next('quiet')) FROM generate_series(1, 500);
SELECT count(*) AS locks_taken FROM pg_locks
 WHERE pid = pg_backend_pid() AND locktype = 'relation'
   AND relation IN ('quiet'::regclass, 'quiet_id_seq'::regclass);
COMMIT;

-- A new session draws a new block: ids never repeat across backends.
\c
SELECT hilo_next('small') AS after_reconnect;
SELECT hilo_next('orders') > 2500 AS above_the_first_session;

-- A table without a key: hilo_next() makes none, it says how to.
CREATE TABLE nokey (id bigint);
SELECT hilo_next('nokey'); \echo :LAST_ERROR_SQLSTATE
-- hilo_create_key() is the DDL's work by hand, for where event triggers do
-- not run (single-user mode, event_triggers = off); it returns the sequence.
SELECT hilo_create_key('nokey', 'id', 10);
SELECT pg_get_expr(adbin, adrelid) AS "default" FROM pg_attrdef WHERE adrelid = 'nokey'::regclass;
SELECT hilo_create_key('nokey', 'id'); \echo :LAST_ERROR_SQLSTATE
-- Event triggers do not fire for sessions in replica mode (nor in single-user
-- mode, or with event_triggers = off on 17 and later): the default stays as
-- written and asks for the key it lacks.
SET session_replication_role = replica;
CREATE TABLE replica_made (id bigint DEFAULT hilo_next('replica_made'));
RESET session_replication_role;
INSERT INTO replica_made DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('replica_made');
INSERT INTO replica_made DEFAULT VALUES RETURNING id;

-- A key is drawn from as a sequence is: a transaction that rolls back does
-- not give back what it drew.
CREATE TABLE rolled (id bigint DEFAULT hilo_next('rolled'));
BEGIN;
SELECT hilo_next('rolled') AS in_rolled_back_txn;
ROLLBACK;
\c
SELECT hilo_next('rolled') AS next_backend;
-- The same under ROLLBACK TO SAVEPOINT, REPEATABLE READ and SERIALIZABLE.
CREATE TABLE rr (id bigint DEFAULT hilo_next('rr'));
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) > 0 AS snapshot_taken FROM pg_class;
SAVEPOINT s;
SELECT hilo_next('rr') AS first_in_rr;
ROLLBACK TO SAVEPOINT s;
SELECT hilo_next('rr') AS same_backend_continues;
COMMIT;
\c
SELECT hilo_next('rr') AS next_backend;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) > 0 AS snapshot_taken FROM pg_class;
CREATE TABLE ser (id bigint DEFAULT hilo_next('ser'));
SELECT hilo_next('ser') AS first_in_serializable;
COMMIT;

-- A table created in a transaction that rolls back takes its key along,
-- as a serial column's sequence goes with its table.
BEGIN;
CREATE TABLE fresh (id bigint DEFAULT hilo_next('fresh'));
INSERT INTO fresh DEFAULT VALUES;
INSERT INTO fresh DEFAULT VALUES;
SELECT id FROM fresh ORDER BY id;
ROLLBACK;
SELECT to_regclass('fresh_id_seq') AS sequence_gone;
-- A key made for a table that existed before its transaction does not
-- give ids until that transaction commits: a ROLLBACK would take the key
-- but keep the table, whose next key would hand out the same ids again.
CREATE TABLE later (v int);
INSERT INTO later VALUES (1), (2);
BEGIN;
ALTER TABLE later ADD COLUMN id bigint;
ALTER TABLE later ALTER COLUMN id SET DEFAULT hilo_next('later');
INSERT INTO later (v) VALUES (3); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
ALTER TABLE later ADD COLUMN id bigint;
ALTER TABLE later ALTER COLUMN id SET DEFAULT hilo_next('later');
INSERT INTO later (v) VALUES (3) RETURNING id;
-- Setting the default again does not make a second key: the column owns
-- the key's sequence, whose blocks sessions may hold above the rows.
-- hilo_set_max_lo() and hilo_bind() change a key; a new one is started
-- only once the old sequence is let go.
ALTER TABLE later ALTER COLUMN id SET DEFAULT hilo_next('later'); \echo :LAST_ERROR_SQLSTATE
SELECT sequence FROM id_gen.hilo_keys WHERE table_name = 'later'::regclass;
-- A key's default written by hand (a migration replaying an older schema,
-- a restored default): the sequence moves as hilo_set_max_lo() would have
-- moved it, so the smaller blocks start above every id given.
CREATE TABLE by_hand_key (id bigint PRIMARY KEY DEFAULT hilo_next('by_hand_key'));
SELECT hilo_set_adaptive('by_hand_key', false);
INSERT INTO by_hand_key SELECT FROM generate_series(1, 1500);
\c
ALTER TABLE by_hand_key ALTER COLUMN id
  SET DEFAULT hilo_next('by_hand_key', 'by_hand_key_id_seq', 'classic', 10, false, NULL);
INSERT INTO by_hand_key SELECT FROM generate_series(1, 20);
SELECT count(*) = count(DISTINCT id) AS unique_ids, min(id) FILTER (WHERE id > 1500) AS smaller_blocks_from
  FROM by_hand_key;
-- A serial column moves to a key the same way.
CREATE TABLE was_serial (id serial PRIMARY KEY, v text);
INSERT INTO was_serial (v) VALUES ('a'), ('b');
ALTER TABLE was_serial ALTER COLUMN id SET DEFAULT hilo_next('was_serial'); \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE was_serial_id_seq OWNED BY NONE;
ALTER TABLE was_serial ALTER COLUMN id SET DEFAULT hilo_next('was_serial');
DROP SEQUENCE was_serial_id_seq;
INSERT INTO was_serial (v) VALUES ('c') RETURNING id;
-- Adding a column with the default fills the existing rows before the key
-- exists: add the column, then set its default.
CREATE TABLE legacy_rows (v int);
INSERT INTO legacy_rows SELECT generate_series(1, 4);
ALTER TABLE legacy_rows ADD COLUMN id bigint NOT NULL DEFAULT hilo_next('legacy_rows'); \echo :LAST_ERROR_SQLSTATE

-- A key starts above the table's rows: a table with ids gets a key whose
-- first block lies above them (read under ALTER TABLE's exclusive lock).
CREATE TABLE loaded (id bigint PRIMARY KEY, v text);
INSERT INTO loaded SELECT g, 'old' FROM generate_series(1, 1500) g;
ALTER TABLE loaded ALTER COLUMN id SET DEFAULT hilo_next('loaded');
INSERT INTO loaded (v) VALUES ('new') RETURNING id;

-- Names resolve like any table name: quoted identifiers, schemas,
-- search_path.  RENAME and SET SCHEMA keep the key: the default names the
-- table and its sequence by OID, and the sequence moves with the table.
CREATE SCHEMA "Sales Dept";
CREATE TABLE "Sales Dept"."Order Items" (id bigint DEFAULT hilo_next('"Sales Dept"."Order Items"'));
INSERT INTO "Sales Dept"."Order Items" DEFAULT VALUES;
SET search_path = "Sales Dept", public;
SELECT hilo_next('"Order Items"') AS via_search_path;
RESET search_path;
ALTER TABLE "Sales Dept"."Order Items" RENAME TO line_items;
SELECT hilo_next('"Sales Dept".line_items') AS renamed_keeps_key;
CREATE SCHEMA archive;
ALTER TABLE "Sales Dept".line_items SET SCHEMA archive;
INSERT INTO archive.line_items DEFAULT VALUES;
SELECT array_agg(id ORDER BY id) FROM archive.line_items;
SELECT table_name, sequence, strategy, max_lo FROM id_gen.hilo_keys WHERE table_name::text LIKE '%line_items';

-- A partitioned table has one key: partitions take the parent's default.
CREATE TABLE parted (id bigint DEFAULT hilo_next('parted'), k int) PARTITION BY RANGE (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (10);
INSERT INTO parted_1 (k) VALUES (1);
INSERT INTO parted (k) VALUES (2);
SELECT k, id FROM parted ORDER BY k;
SELECT count(*) AS keys FROM id_gen.hilo_keys WHERE table_name IN ('parted'::regclass, 'parted_1'::regclass);
-- A partition with a key of its own (created so, or attached) repeats the
-- parent's ids where the primary key leaves out the partition key: a
-- WARNING says how to share the parent's.
CREATE TABLE parted_2 PARTITION OF parted (id DEFAULT hilo_next('parted_2')) FOR VALUES FROM (10) TO (20);
CREATE TABLE parted_3 (id bigint DEFAULT hilo_next('parted_3'), k int);
ALTER TABLE parted ATTACH PARTITION parted_3 FOR VALUES FROM (20) TO (30);
ALTER TABLE parted_2 ALTER COLUMN id SET DEFAULT hilo_next('parted');
SELECT count(*) AS keys FROM id_gen.hilo_keys WHERE table_name::text LIKE 'parted%';
-- DETACH leaves the partition's copied default naming the parent's key:
-- the detached table draws on from it, apart from the parent's ids, and
-- the parent cannot be dropped under it, as under a copied nextval().
ALTER TABLE parted DETACH PARTITION parted_1;
INSERT INTO parted_1 (k) VALUES (3);
INSERT INTO parted (k) VALUES (15);
SELECT count(*) AS rows, count(DISTINCT id) AS ids
  FROM (SELECT id FROM parted UNION ALL SELECT id FROM parted_1) s;
DROP TABLE parted; \echo :LAST_ERROR_SQLSTATE
-- LIKE ... INCLUDING DEFAULTS copies the default: the copy draws from the
-- same key (and needs INSERT on the key's table).
CREATE TABLE orders_copy (LIKE orders INCLUDING DEFAULTS);
INSERT INTO orders_copy (note) VALUES ('copy') RETURNING id > 2500 AS from_the_orders_key;

-- Dropping a table drops its key, as it drops a serial's sequence.  The
-- sequence of a live key cannot be dropped under it.
DROP SEQUENCE orders_id_seq; \echo :LAST_ERROR_SQLSTATE
DROP TABLE orders_copy;
DROP TABLE orders;
SELECT to_regclass('orders_id_seq') AS orders_sequence;
DROP SCHEMA "Sales Dept", archive CASCADE;

-- hilo_set_max_lo changes the block size: the default is rewritten and the
-- sequence moves so that the new blocks start above every id the old size
-- could have given.
CREATE TABLE resized (id bigint PRIMARY KEY DEFAULT hilo_next('resized'));
SELECT hilo_set_adaptive('resized', false);
INSERT INTO resized SELECT FROM generate_series(1, 5);
SELECT last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'resized'::regclass;
SELECT hilo_set_max_lo('resized', 10);
-- The next block of 10 starts at 1000, the first id no block of 1000 reached.
SELECT max_lo, last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'resized'::regclass;
SELECT pg_get_expr(adbin, adrelid) AS "default" FROM pg_attrdef WHERE adrelid = 'resized'::regclass;
-- A backend uses up the block it holds (6 .. 999: drawn under the old size,
-- below every new block), then draws blocks of the new size.
SELECT hilo_next('resized') AS rest_of_old_block;
\c
SELECT hilo_next('resized') AS other_backend, hilo_next('resized') AS and_next;
-- Growing the block: the sequence does not move (it never moves back), and
-- its next value, 101, gives a block of 100000 far above every id given.
SELECT hilo_set_max_lo('resized', 100000);
\c
SELECT hilo_next('resized') AS after_growing;
SELECT hilo_set_max_lo('resized', 100000);	-- the same size: nothing to do

-- Ids are always >= 1 and never overflow: a key whose next block would
-- pass 2^63-1 fails with SQLSTATE 2200H and hands out nothing.
SET id_gen.hilo_max_lo = 1000;
CREATE TABLE big (id bigint DEFAULT hilo_next('big'));
RESET id_gen.hilo_max_lo;
SELECT hilo_set_adaptive('big', false);
SELECT setval('big_id_seq', 9223372036854774, false);	-- the last hi whose block fits
SELECT hilo_next('big') AS last_block_start;
SELECT hilo_set_max_lo('big', 999);		-- the key is used up: refused, nothing changes
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'big'::regclass;
\c
SELECT hilo_next('big'); \echo :LAST_ERROR_SQLSTATE

-- A block ending exactly at 2^63-1 is used to its last id, then the key
-- stops (here the bound sequence itself reports 2200H): ids never wrap.
CREATE TABLE top (id bigint DEFAULT hilo_next('top'));
CREATE SEQUENCE top_seq INCREMENT 2;
SELECT hilo_bind('top', 'top_seq', 'pooled_lo');
SELECT setval('top_seq', 9223372036854775806, false);
SELECT hilo_next('top') AS second_to_last, hilo_next('top') AS last_bigint;
SELECT hilo_next('top'); \echo :LAST_ERROR_SQLSTATE

-- Mixed writers: an application's own client-side Hi/Lo and DEFAULT
-- hilo_next() share one sequence, for each ORM formula.  client_block()
-- plays the application: one nextval() and the ORM's formula.
CREATE FUNCTION client_block(seq regclass, strategy text, max_lo int)
RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE
    v bigint := nextval(seq);
    inc bigint := (SELECT seqincrement FROM pg_sequence WHERE seqrelid = seq);
BEGIN
    RETURN QUERY SELECT id FROM (
        SELECT CASE strategy
                 WHEN 'classic' THEN v * max_lo + lo
                 WHEN 'legacy' THEN v * (max_lo + 1) + lo
                 WHEN 'pooled_lo' THEN v + lo
                 WHEN 'pooled' THEN v - inc + 1 + lo END AS id
          FROM generate_series(0, CASE strategy WHEN 'legacy' THEN max_lo
                                               WHEN 'classic' THEN max_lo - 1
                                               ELSE inc - 1 END) lo) b
     WHERE id >= 1;
END $$;

CREATE SEQUENCE classic_seq;					-- Hibernate "hilo"/seqhilo: INCREMENT 1
CREATE SEQUENCE legacy_seq;						-- NHibernate: INCREMENT 1
CREATE SEQUENCE pooled_lo_seq INCREMENT 10;		-- EF Core UseHiLo: INCREMENT = block
CREATE SEQUENCE pooled_seq INCREMENT 10;		-- Hibernate pooled: INCREMENT = block
CREATE TABLE mixed_classic (id bigint PRIMARY KEY DEFAULT hilo_next('mixed_classic'), who text);
CREATE TABLE mixed_legacy (id bigint PRIMARY KEY DEFAULT hilo_next('mixed_legacy'), who text);
CREATE TABLE mixed_pooled_lo (id bigint PRIMARY KEY DEFAULT hilo_next('mixed_pooled_lo'), who text);
CREATE TABLE mixed_pooled (id bigint PRIMARY KEY DEFAULT hilo_next('mixed_pooled'), who text);
SELECT hilo_bind('mixed_classic', 'classic_seq', 'classic', 10);
SELECT hilo_bind('mixed_legacy', 'legacy_seq', 'legacy', 9);
SELECT hilo_bind('mixed_pooled_lo', 'pooled_lo_seq', 'pooled_lo');
SELECT hilo_bind('mixed_pooled', 'pooled_seq', 'pooled');
-- Binding again just the same is a no-op.
SELECT hilo_bind('mixed_pooled', 'pooled_seq', 'pooled', 10);
SELECT table_name, strategy, max_lo, sequence, own_sequence FROM id_gen.hilo_keys
 WHERE table_name::text LIKE 'mixed_%' ORDER BY 1::text;
-- Worked examples (README.md, Hi/Lo keys): the first block of each formula.
SELECT hilo_next('mixed_classic') AS classic, hilo_next('mixed_legacy') AS legacy,
       hilo_next('mixed_pooled_lo') AS pooled_lo, hilo_next('mixed_pooled') AS pooled;
-- Interleave: the application takes a block, the database takes ids, the
-- application takes another block, from three backends; every insert would
-- fail on the primary key if an id came twice.
DO $$
DECLARE
    t text;
    m int;
BEGIN
    FOR t, m IN VALUES ('classic', 10), ('legacy', 9), ('pooled_lo', 10), ('pooled', 10) LOOP
        EXECUTE format('INSERT INTO mixed_%s SELECT c, ''app'' FROM client_block(%L, %L, %s)',
                       t, t || '_seq', t, m) || ' c';
        EXECUTE format('INSERT INTO mixed_%s (who) SELECT ''db'' FROM generate_series(1, 25)', t);
        EXECUTE format('INSERT INTO mixed_%s SELECT c, ''app'' FROM client_block(%L, %L, %s)',
                       t, t || '_seq', t, m) || ' c';
    END LOOP;
END $$;
\c
DO $$
DECLARE
    t text;
    m int;
BEGIN
    FOR t, m IN VALUES ('classic', 10), ('legacy', 9), ('pooled_lo', 10), ('pooled', 10) LOOP
        EXECUTE format('INSERT INTO mixed_%s (who) SELECT ''db2'' FROM generate_series(1, 15)', t);
        EXECUTE format('INSERT INTO mixed_%s SELECT c, ''app'' FROM client_block(%L, %L, %s)',
                       t, t || '_seq', t, m) || ' c';
    END LOOP;
END $$;
SELECT 'classic' AS strategy, count(*), count(DISTINCT id), min(id), sum((who = 'app')::int) AS app
  FROM mixed_classic
UNION ALL SELECT 'legacy', count(*), count(DISTINCT id), min(id), sum((who = 'app')::int) FROM mixed_legacy
UNION ALL SELECT 'pooled_lo', count(*), count(DISTINCT id), min(id), sum((who = 'app')::int) FROM mixed_pooled_lo
UNION ALL SELECT 'pooled', count(*), count(DISTINCT id), min(id), sum((who = 'app')::int) FROM mixed_pooled;

-- Doctrine ORM's SequenceGenerator takes nextval() v of a sequence its
-- schema tool creates INCREMENT BY allocationSize, and hands out v ..
-- v + allocationSize - 1: the pooled_lo formula.  A Doctrine application
-- (allocationSize 20) and DEFAULT hilo_next() on one sequence, interleaved.
CREATE SEQUENCE doctrine_seq INCREMENT BY 20 MINVALUE 1 START 1;
CREATE TABLE doctrine_t (id bigint PRIMARY KEY DEFAULT hilo_next('doctrine_t'), who text);
SELECT hilo_bind('doctrine_t', 'doctrine_seq', 'pooled_lo');
INSERT INTO doctrine_t SELECT v + lo, 'doctrine' FROM (SELECT nextval('doctrine_seq') v) s, generate_series(0, 19) lo;
INSERT INTO doctrine_t (who) SELECT 'db' FROM generate_series(1, 30);
INSERT INTO doctrine_t SELECT v + lo, 'doctrine' FROM (SELECT nextval('doctrine_seq') v) s, generate_series(0, 19) lo;
SELECT who, count(*), count(DISTINCT id), min(id), max(id) FROM doctrine_t GROUP BY who ORDER BY who;

-- hilo_bind is the owner's DDL: rolled back, the table keeps its own key.
-- The bound sequence may have moved forward (never back): nothing drawn
-- under either formula comes again.
CREATE TABLE bind_rb (id bigint DEFAULT hilo_next('bind_rb'));
CREATE SEQUENCE bind_rb_seq INCREMENT 5;
BEGIN;
SELECT hilo_bind('bind_rb', 'bind_rb_seq', 'pooled_lo');
-- The transaction that changed the key may not draw from it.
SELECT hilo_next('bind_rb'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT strategy, sequence, own_sequence FROM id_gen.hilo_keys WHERE table_name = 'bind_rb'::regclass;
SELECT hilo_next('bind_rb') AS own_key_again;

-- A key already in use can be bound later, e.g. when the application adopts
-- EF Core's UseHiLo: the application's sequence is moved forward so that
-- its blocks start above every id the key handed out.  The column keeps
-- its own sequence, unused.
CREATE TABLE adopt (id bigint PRIMARY KEY DEFAULT hilo_next('adopt'), who text);
SELECT hilo_set_adaptive('adopt', false);
INSERT INTO adopt (who) SELECT 'db' FROM generate_series(1, 5);
\c
INSERT INTO adopt (who) SELECT 'db' FROM generate_series(1, 5);
SELECT last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'adopt'::regclass;
CREATE SEQUENCE adopt_seq INCREMENT 10;
SELECT hilo_bind('adopt', 'adopt_seq', 'pooled_lo');
SELECT nextval('adopt_seq') AS application_block_start;
SELECT pg_get_serial_sequence('adopt', 'id') AS still_owned_by_the_column;
-- This backend uses up its block (of the old key), then draws from adopt_seq.
INSERT INTO adopt (who) SELECT 'db' FROM generate_series(1, 12);
INSERT INTO adopt SELECT c, 'app' FROM client_block('adopt_seq', 'pooled_lo', 10) c;
SELECT count(*), count(DISTINCT id) FROM adopt;

-- A pooled key's block size is its sequence's INCREMENT, the application's
-- allocation size: hilo_set_max_lo refuses to change it (ALTER SEQUENCE is
-- transactional and a ROLLBACK after draws would reissue them).
SELECT hilo_set_max_lo('mixed_pooled_lo', 4); \echo :LAST_ERROR_SQLSTATE
-- An ALTER SEQUENCE ... INCREMENT made by the application is read from the
-- sequence at each draw, as the application reads it.
ALTER SEQUENCE pooled_seq INCREMENT 3;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'mixed_pooled'::regclass;
\c
INSERT INTO mixed_pooled (who) SELECT 'db4' FROM generate_series(1, 10);
INSERT INTO mixed_pooled SELECT c, 'app' FROM client_block('pooled_seq', 'pooled', 3) c;
SELECT count(*) = count(DISTINCT id) AS unique_after_alter FROM mixed_pooled;

-- Who may do what.  A role that owns its table needs no grant at all; a
-- role with INSERT on someone else's table may draw ids; nobody else can.
CREATE ROLE regress_hilo_owner;
CREATE ROLE regress_hilo_writer;
CREATE ROLE regress_hilo_other;
GRANT CREATE ON SCHEMA public TO regress_hilo_owner;
SET ROLE regress_hilo_owner;
CREATE TABLE owned (id bigint PRIMARY KEY DEFAULT hilo_next('owned'), v text);
INSERT INTO owned (v) VALUES ('by owner');
GRANT INSERT, SELECT ON owned TO regress_hilo_writer;
SELECT hilo_set_max_lo('owned', 50);
RESET ROLE;
SET ROLE regress_hilo_writer;
INSERT INTO owned (v) VALUES ('by writer');
SELECT hilo_next('owned') > 0 AS writer_may_draw;
-- not the owner
SELECT hilo_set_max_lo('owned', 7); \echo :LAST_ERROR_SQLSTATE
-- the key's sequence is the owner's, granted to nobody
SELECT nextval('owned_id_seq'); \echo :LAST_ERROR_SQLSTATE
SELECT setval('owned_id_seq', 1); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SET ROLE regress_hilo_other;
-- no INSERT, and nothing drawn
SELECT hilo_next('owned'); \echo :LAST_ERROR_SQLSTATE
-- naming the key's sequence and another formula in a call does not help
SELECT hilo_next('owned', 'owned_id_seq', 'classic', 1000000, false, NULL); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
-- INSERT on some columns is enough: the DEFAULT fills the key column.
SET ROLE regress_hilo_owner;
GRANT INSERT (v) ON owned TO regress_hilo_other;
RESET ROLE;
SET ROLE regress_hilo_other;
INSERT INTO owned (v) VALUES ('column privilege');
SELECT hilo_next('owned') > 0 AS column_insert_may_draw;
-- A call names the key's table's own formula or nothing: another sequence
-- is refused (the block drawn is the table's key's anyway).
SELECT hilo_next('owned', 'classic_seq', 'classic', 10, false, NULL); \echo :LAST_ERROR_SQLSTATE
-- A table of one's own whose default names another's sequence draws
-- nothing from it without USAGE on it, as nextval() would not.
RESET ROLE;
GRANT CREATE ON SCHEMA public TO regress_hilo_other;
SET ROLE regress_hilo_other;
CREATE TABLE planted (id bigint DEFAULT hilo_next('planted', 'owned_id_seq', 'classic', 1, false, NULL));
INSERT INTO planted DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
DROP TABLE planted;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM regress_hilo_other;
-- Binding needs USAGE (or UPDATE) on the sequence, and moving it forward
-- (a key in use, or rows in the table) needs UPDATE, as setval() does.
CREATE SEQUENCE shared_seq INCREMENT 10;
GRANT USAGE ON shared_seq TO regress_hilo_owner;
SET ROLE regress_hilo_owner;
CREATE TABLE owned_pooled (id bigint DEFAULT hilo_next('owned_pooled'));
SELECT hilo_bind('owned', 'shared_seq', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('owned_pooled', 'classic_seq', 'classic', 10); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT UPDATE ON shared_seq TO regress_hilo_owner;
SET ROLE regress_hilo_owner;
SELECT hilo_bind('owned_pooled', 'shared_seq', 'pooled_lo');
GRANT INSERT ON owned_pooled TO regress_hilo_writer;
RESET ROLE;
-- Drawing from a bound key needs what nextval() needs on its sequence.
SET ROLE regress_hilo_writer;
INSERT INTO owned_pooled DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT USAGE ON shared_seq TO regress_hilo_writer;
SET ROLE regress_hilo_writer;
INSERT INTO owned_pooled DEFAULT VALUES;
RESET ROLE;
SELECT count(*) AS bound_key_rows FROM owned_pooled;
-- REVOKE reaches a backend that already holds a block for the table.
SET ROLE regress_hilo_writer;
SELECT hilo_next('owned') > 0 AS before_revoke;
RESET ROLE;
REVOKE INSERT ON owned FROM regress_hilo_writer;
SET ROLE regress_hilo_writer;
SELECT hilo_next('owned'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
-- The key follows the table's owner, as a serial's sequence does.
ALTER TABLE owned OWNER TO regress_hilo_writer;
SELECT pg_get_userbyid(relowner) AS sequence_owner FROM pg_class WHERE oid = 'owned_id_seq'::regclass;
SET ROLE regress_hilo_writer;
INSERT INTO owned (v) VALUES ('new owner') RETURNING id > 0 AS new_owner_draws;
RESET ROLE;

-- A hostile search_path captures nothing: the extension's SQL is
-- schema-qualified and runs with search_path = pg_catalog, pg_temp.
CREATE SCHEMA evil;
CREATE FUNCTION evil.nextval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
CREATE FUNCTION evil.setval(regclass, bigint, boolean) RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
SET search_path = pg_temp, evil, public;
CREATE TABLE public.captured (id bigint DEFAULT public.hilo_next('public.captured'));
SELECT public.hilo_set_max_lo('public.captured', 7);
SELECT public.hilo_next('public.captured') AS not_captured;
RESET search_path;
SELECT sequence, max_lo FROM id_gen.hilo_keys WHERE table_name = 'captured'::regclass;
DROP SCHEMA evil CASCADE;

DROP OWNED BY regress_hilo_owner, regress_hilo_writer CASCADE;
REVOKE CREATE ON SCHEMA public FROM regress_hilo_owner;
DROP ROLE regress_hilo_owner, regress_hilo_writer, regress_hilo_other;
