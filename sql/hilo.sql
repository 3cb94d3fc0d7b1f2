-- Hi/Lo keys: hilo_next(table), hilo_set_max_lo(), hilo_bind() and the hi table.
-- (Errors and bad input are in hilo_errors.sql.)

-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE:
-- the output shows the error as a client sees it (message, detail, hint)
-- and then its SQLSTATE.  Where a message holds a name that varies from
-- run to run, VERBOSITY sqlstate prints only the SQLSTATE and the message
-- is shown masked.

-- A key is created on first use with id_gen.hilo_max_lo ids per block
-- (default 1000).  Ids start at 1 and run through the block in order.
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), note text);
INSERT INTO orders (note) SELECT 'n' || g FROM generate_series(1, 2500) g;
SELECT min(id), max(id), count(*) FROM orders;
SHOW id_gen.hilo_max_lo;
-- The DEFAULT stores the table's OID, like nextval('seq') does.
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'orders'::regclass;

-- The hi table: one row per key, readable by everyone; id_gen.hilo_keys shows
-- where each key stands (last hi drawn, highest id any backend may hold).
SELECT relid, seq, strategy, max_lo, own_seq FROM id_gen.hilo_key;
SELECT * FROM id_gen.hilo_keys;
-- Its contents and the key sequences survive pg_dump (see test/t/011_hilo_dump.pl).
SELECT 'id_gen.hilo_key'::regclass = ANY (extconfig) AS hi_table_dumped,
       'id_gen.hilo_seq_counter'::regclass = ANY (extconfig) AS counter_dumped
  FROM pg_extension WHERE extname = 'id_gen';

-- A small block, chosen before first use through the setting.
SET id_gen.hilo_max_lo = 3;
CREATE TABLE small (id bigint PRIMARY KEY DEFAULT hilo_next('small'));
SELECT hilo_next('small') FROM generate_series(1, 7);
RESET id_gen.hilo_max_lo;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'small'::regclass;

-- The fast path touches no table, sequence or lock: with a block in hand,
-- a transaction drawing ids holds no lock on the hi table or the sequence.
CREATE TABLE quiet (id bigint);
SELECT hilo_next('quiet') AS draws_a_block;
SELECT 'id_gen.hilo_key'::regclass::oid AS hi_table_oid,
       to_regclass(seq)::oid AS quiet_seq_oid, 'quiet'::regclass::oid AS quiet_oid
  FROM id_gen.hilo_key WHERE relid = 'quiet'::regclass \gset
BEGIN;
SELECT count(hilo_next('quiet')) FROM generate_series(1, 500);
SELECT count(*) AS locks_taken FROM pg_locks
 WHERE pid = pg_backend_pid() AND locktype = 'relation'
   AND relation IN (:hi_table_oid, :quiet_seq_oid, :quiet_oid);
COMMIT;

-- A new session draws a new block: ids never repeat across backends.
\c
SELECT hilo_next('small') AS after_reconnect;
SELECT hilo_next('orders') > 2500 AS above_the_first_session;

-- The first use of a key inside a transaction that rolls back: the key is
-- created by a background worker in a transaction of its own, so the
-- rollback cannot undo it, and the next backend continues above.
CREATE TABLE rolled (id bigint);
BEGIN;
SELECT hilo_next('rolled') AS in_rolled_back_txn;
SELECT hilo_next('rolled');
ROLLBACK;
SELECT count(*) AS key_survived_rollback FROM id_gen.hilo_key WHERE relid = 'rolled'::regclass;
\c
SELECT hilo_next('rolled') AS next_backend;
-- The same holds for ROLLBACK TO SAVEPOINT and for REPEATABLE READ, where
-- the caller must still see the row the worker committed after its snapshot.
CREATE TABLE rr (id bigint);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) > 0 AS snapshot_taken FROM pg_class;
SAVEPOINT s;
SELECT hilo_next('rr') AS first_in_rr;
ROLLBACK TO SAVEPOINT s;
SELECT hilo_next('rr') AS same_backend_continues;
COMMIT;
\c
SELECT hilo_next('rr') AS next_backend;
CREATE TABLE ser (id bigint);
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) > 0 AS snapshot_taken FROM pg_class;
SELECT hilo_next('ser') AS first_in_serializable;
COMMIT;

-- A table created in the same transaction is invisible to the worker: its
-- key is created in that transaction and lives and dies with the table.
BEGIN;
CREATE TABLE fresh (id bigint DEFAULT hilo_next('fresh'));
INSERT INTO fresh DEFAULT VALUES;
INSERT INTO fresh DEFAULT VALUES;
SELECT id FROM fresh ORDER BY id;
ROLLBACK;
SELECT count(*) AS no_row_left FROM id_gen.hilo_key k WHERE NOT EXISTS
  (SELECT 1 FROM pg_class c WHERE c.oid = k.relid);
BEGIN;
CREATE TABLE fresh (id bigint DEFAULT hilo_next('fresh'));
INSERT INTO fresh DEFAULT VALUES;
COMMIT;
SELECT hilo_next('fresh') AS committed_with_the_table;
-- The documented edge: the table was created in this transaction and its
-- key in a subtransaction that rolls back.  The backend forgets its block
-- with the key (else, after COMMIT, it would keep handing out ids that a
-- key created later starts from again); the key starts again at 1, and ids
-- seen inside the rolled-back subtransaction come again.
BEGIN;
CREATE TABLE fresh_sub (id bigint PRIMARY KEY DEFAULT hilo_next('fresh_sub'));
SAVEPOINT s;
SELECT hilo_next('fresh_sub') AS in_savepoint, hilo_next('fresh_sub') AS again;
ROLLBACK TO SAVEPOINT s;
INSERT INTO fresh_sub DEFAULT VALUES RETURNING id AS after_rollback_to_savepoint;
COMMIT;
\c
INSERT INTO fresh_sub DEFAULT VALUES RETURNING id AS other_backend;

-- Names resolve like any table name: quoted identifiers, schemas,
-- search_path.  A renamed table keeps its key (it is keyed by OID).
CREATE SCHEMA "Sales Dept";
CREATE TABLE "Sales Dept"."Order Items" (id bigint DEFAULT hilo_next('"Sales Dept"."Order Items"'));
INSERT INTO "Sales Dept"."Order Items" DEFAULT VALUES;
SET search_path = "Sales Dept", public;
SELECT hilo_next('"Order Items"') AS via_search_path;
RESET search_path;
ALTER TABLE "Sales Dept"."Order Items" RENAME TO line_items;
SELECT hilo_next('"Sales Dept".line_items') AS renamed_keeps_key;
INSERT INTO "Sales Dept".line_items DEFAULT VALUES;
SELECT array_agg(id ORDER BY id) FROM "Sales Dept".line_items;
SELECT table_name, strategy, max_lo FROM id_gen.hilo_keys WHERE table_name::text LIKE '%line_items';

-- Adding a key column to a table with rows fills them during the rewrite,
-- under ALTER TABLE's exclusive lock (the worker does not need the table).
CREATE TABLE legacy_rows (v int);
INSERT INTO legacy_rows SELECT generate_series(1, 4);
ALTER TABLE legacy_rows ADD COLUMN id bigint NOT NULL DEFAULT hilo_next('legacy_rows');
SELECT v, id FROM legacy_rows ORDER BY v;

-- A partitioned table has one key: partitions inherit the parent's default.
CREATE TABLE parted (id bigint DEFAULT hilo_next('parted'), k int) PARTITION BY RANGE (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (10);
INSERT INTO parted_1 (k) VALUES (1);
INSERT INTO parted (k) VALUES (2);
SELECT k, id FROM parted ORDER BY k;
SELECT count(*) AS keys FROM id_gen.hilo_key WHERE relid IN ('parted'::regclass, 'parted_1'::regclass);

-- Dropping a table removes its row and its own sequence, so nothing in the
-- hi table breaks a dump.
SELECT seq AS fresh_seq FROM id_gen.hilo_key WHERE relid = 'fresh'::regclass \gset
DROP TABLE fresh;
SELECT count(*) AS fresh_row FROM id_gen.hilo_key WHERE seq::text = :'fresh_seq';
SELECT to_regclass(:'fresh_seq') AS fresh_sequence;
DROP SCHEMA "Sales Dept" CASCADE;
SELECT count(*) AS rows_of_dropped_tables FROM id_gen.hilo_key k
 WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = k.relid);
-- The sequence of a live key cannot be dropped under it.
SELECT seq AS orders_seq FROM id_gen.hilo_key WHERE relid = 'orders'::regclass \gset
DROP SEQUENCE :orders_seq;

-- hilo_set_max_lo changes the block size and moves the hi above every id
-- already handed out, so the new blocks never overlap the old ones.
CREATE TABLE resized (id bigint PRIMARY KEY DEFAULT hilo_next('resized'));
INSERT INTO resized SELECT FROM generate_series(1, 5);
SELECT last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'resized'::regclass;
SELECT hilo_set_max_lo('resized', 10);
-- The sequence moved so that the next block of 10 starts at 1000, the
-- first id no block of 1000 reached.
SELECT max_lo, last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'resized'::regclass;
-- The change is committed at once (not undone by ROLLBACK, like setval():
-- see hilo_rollback.sql).  A backend drops the rest of a block drawn under
-- the old size (here 6 .. 999) and draws a block of the new size.
SELECT hilo_next('resized') AS new_block;
-- Every backend's next block has the new size.
\c
SELECT hilo_next('resized') AS other_backend, hilo_next('resized') AS and_next;
SELECT max_lo, last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'resized'::regclass;
-- Growing the block keeps the key's position in ids, never rescaling it:
-- the next block is the first block of 100000 at or above 1020, the first
-- id no block reached (not block 102 of 100000).  Its value is below the
-- sequence's, and a sequence never moves back (setval() is not
-- transactional), so the key moves to a new sequence of its own.
SELECT hilo_set_max_lo('resized', 100000);
\c
SELECT hilo_next('resized') AS after_growing;
-- Setting the size of a key not used yet creates it with that size.
CREATE TABLE presized (id bigint);
SELECT hilo_set_max_lo('presized', 5);
SELECT hilo_next('presized') FROM generate_series(1, 6);

-- Ids are always >= 1 and never overflow: a key whose next block would
-- pass 2^63-1 fails with SQLSTATE 2200H and hands out nothing.
CREATE TABLE big (id bigint);
SELECT hilo_set_max_lo('big', 1000);
SELECT seq AS big_seq FROM id_gen.hilo_key WHERE relid = 'big'::regclass \gset
SELECT setval(:'big_seq', 9223372036854774, false);	-- the last hi whose block fits
SELECT hilo_next('big') AS last_block_start;
SELECT hilo_set_max_lo('big', 1000);	-- the same size: nothing to do
SELECT hilo_set_max_lo('big', 999);		-- the key is used up: refused, nothing changes
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'big'::regclass;
\c
SELECT hilo_next('big'); \echo :LAST_ERROR_SQLSTATE

-- A block ending exactly at 2^63-1 is used to its last id, then the key
-- stops (here the bound sequence itself reports 2200H): ids never wrap.
CREATE TABLE top (id bigint);
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

-- hilo_bind is committed at once, like setval(): rolled back, the table
-- stays bound, so ids drawn from the bound sequence inside the rolled-back
-- transaction never come again (see hilo_rollback.sql).
CREATE TABLE bind_rb (id bigint);
CREATE SEQUENCE bind_rb_seq INCREMENT 5;
BEGIN;
SELECT hilo_bind('bind_rb', 'bind_rb_seq', 'pooled_lo');
SELECT hilo_next('bind_rb') AS from_bound_sequence;
ROLLBACK;
SELECT count(*) AS key_after_rollback FROM id_gen.hilo_key WHERE relid = 'bind_rb'::regclass;
SELECT hilo_next('bind_rb') AS same_block, hilo_next('bind_rb') AS same_backend;
SELECT strategy, own_sequence FROM id_gen.hilo_keys WHERE table_name = 'bind_rb'::regclass;

-- A key already in use can be bound later, e.g. when the application adopts
-- EF Core's UseHiLo: the application's sequence is moved forward so that
-- its blocks start above every id the key handed out, and the key's own
-- sequence is dropped.
CREATE TABLE adopt (id bigint PRIMARY KEY DEFAULT hilo_next('adopt'), who text);
INSERT INTO adopt (who) SELECT 'db' FROM generate_series(1, 5);
\c
INSERT INTO adopt (who) SELECT 'db' FROM generate_series(1, 5);
SELECT last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'adopt'::regclass;
SELECT seq AS adopt_own_seq FROM id_gen.hilo_key WHERE relid = 'adopt'::regclass \gset
CREATE SEQUENCE adopt_seq INCREMENT 10;
SELECT hilo_bind('adopt', 'adopt_seq', 'pooled_lo');
SELECT nextval('adopt_seq') AS application_block_start;
SELECT to_regclass(:'adopt_own_seq') IS NULL AS own_sequence_dropped;
-- This backend drops the rest of its old block and draws from adopt_seq.
INSERT INTO adopt (who) SELECT 'db' FROM generate_series(1, 12) RETURNING id;
INSERT INTO adopt SELECT c, 'app' FROM client_block('adopt_seq', 'pooled_lo', 10) c;
SELECT count(*), count(DISTINCT id) FROM adopt;

-- Changing a pooled key's block size changes the sequence's INCREMENT too.
SELECT hilo_set_max_lo('mixed_pooled_lo', 4);
SELECT seqincrement FROM pg_sequence WHERE seqrelid = 'pooled_lo_seq'::regclass;
\c
INSERT INTO mixed_pooled_lo (who) SELECT 'db3' FROM generate_series(1, 10);
INSERT INTO mixed_pooled_lo SELECT c, 'app' FROM client_block('pooled_lo_seq', 'pooled_lo', 4) c;
SELECT count(*) = count(DISTINCT id) AS unique_after_resize FROM mixed_pooled_lo;
-- An ALTER SEQUENCE ... INCREMENT made behind hilo_set_max_lo's back is
-- noticed too: the pooled block size is always read from the sequence.
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
RESET ROLE;
SET ROLE regress_hilo_other;
-- no INSERT, and nothing drawn
SELECT hilo_next('owned'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
-- INSERT on some columns is enough: the DEFAULT fills the key column.
SET ROLE regress_hilo_owner;
GRANT INSERT (v) ON owned TO regress_hilo_other;
RESET ROLE;
SET ROLE regress_hilo_other;
INSERT INTO owned (v) VALUES ('column privilege');
SELECT hilo_next('owned') > 0 AS column_insert_may_draw;
-- Binding needs USAGE (or UPDATE) on the sequence; changing a pooled key's
-- block size alters the sequence's INCREMENT, which needs its ownership.
RESET ROLE;
CREATE SEQUENCE shared_seq INCREMENT 10;
GRANT USAGE ON shared_seq TO regress_hilo_owner;
SET ROLE regress_hilo_owner;
CREATE TABLE owned_pooled (id bigint DEFAULT hilo_next('owned_pooled'));
-- (moving a key already in use sets the sequence forward: that needs UPDATE)
SELECT hilo_next('owned') > 0 AS owned_in_use;
SELECT hilo_bind('owned', 'shared_seq', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('owned_pooled', 'classic_seq', 'classic', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('owned_pooled', 'shared_seq', 'pooled_lo');
SELECT hilo_set_max_lo('owned_pooled', 1); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT UPDATE ON shared_seq TO regress_hilo_owner;
SET ROLE regress_hilo_owner;
SELECT hilo_set_max_lo('owned_pooled', 1); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT seqincrement FROM pg_sequence WHERE seqrelid = 'shared_seq'::regclass;
SET ROLE regress_hilo_other;

-- Nobody but the extension may write the hi table or touch the sequences.
UPDATE id_gen.hilo_key SET max_lo = 1;
DELETE FROM id_gen.hilo_key;
TRUNCATE id_gen.hilo_key;
INSERT INTO id_gen.hilo_key VALUES ('owned', 'owned', 'classic', 1, false);
SELECT seq AS owned_seq FROM id_gen.hilo_key WHERE relid = 'owned'::regclass \gset
\set VERBOSITY sqlstate
SELECT setval(:'owned_seq', 1);
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', 'hilo_seq_[0-9]+', 'hilo_seq_N') AS error;
\set VERBOSITY sqlstate
SELECT nextval(:'owned_seq');
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', 'hilo_seq_[0-9]+', 'hilo_seq_N') AS error;
SELECT count(*) > 0 AS rows_readable FROM id_gen.hilo_key;
RESET ROLE;
-- REVOKE reaches a backend that already holds a block for the table.
SET ROLE regress_hilo_writer;
SELECT hilo_next('owned') > 0 AS before_revoke;
RESET ROLE;
REVOKE INSERT ON owned FROM regress_hilo_writer;
SET ROLE regress_hilo_writer;
SELECT hilo_next('owned'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- A hostile search_path or temp table captures nothing: the extension's
-- SQL is schema-qualified and runs with search_path = pg_catalog, pg_temp.
CREATE TEMP TABLE hilo_key (relid regclass, seq regclass, strategy text, max_lo int, own_seq bool);
CREATE SCHEMA evil;
CREATE FUNCTION evil.nextval(regclass) RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
CREATE TABLE captured (id bigint);
SET search_path = pg_temp, evil, public;
SELECT hilo_next('public.captured') AS not_captured;
SELECT count(*) AS temp_table_untouched FROM pg_temp.hilo_key;
RESET search_path;
SELECT count(*) AS real_row FROM id_gen.hilo_key WHERE relid = 'captured'::regclass;
DROP SCHEMA evil CASCADE;

DROP OWNED BY regress_hilo_owner CASCADE;
REVOKE CREATE ON SCHEMA public FROM regress_hilo_owner;
DROP ROLE regress_hilo_owner, regress_hilo_writer, regress_hilo_other;
