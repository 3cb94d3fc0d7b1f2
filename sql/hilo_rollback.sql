-- Hi/Lo: what ROLLBACK does and does not undo.
--
-- hilo_next() draws hi values from sequences, and a key is created on its
-- first use by a background worker in a transaction of its own (hilo.sql):
-- no rollback gives a block back.  hilo_set_max_lo() and hilo_bind() move
-- a sequence (which no rollback undoes) and change the key's row, so they
-- too are committed at once by that worker, like setval(): ROLLBACK does
-- not undo them.  Other sessions interleaving with such a transaction are
-- in test/specs/hilo_admin_rollback.spec.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE:
-- the output shows the error as a client sees it, then its SQLSTATE.

-- A key with blocks of 10 that has reserved ids up to 29 (hi 0, 1, 2).
CREATE TABLE rb (id bigint PRIMARY KEY DEFAULT hilo_next('rb'));
SELECT hilo_set_max_lo('rb', 10);
INSERT INTO rb SELECT FROM generate_series(1, 25);
\c

-- A block size changed in a transaction that rolls back stays changed, and
-- the session goes on with the block it drew under it (100 .. 199: the
-- first block of 100 above the ids blocks of 10 reached); the next session
-- draws above that block.
BEGIN;
SELECT hilo_set_max_lo('rb', 100);
INSERT INTO rb DEFAULT VALUES RETURNING id AS in_rolled_back_txn;
ROLLBACK;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
INSERT INTO rb DEFAULT VALUES RETURNING id AS same_session;
\c
INSERT INTO rb SELECT FROM generate_series(1, 300);
SELECT count(*) = count(DISTINCT id) AS unique_ids, min(id) FILTER (WHERE id > 101) AS next_session_from
  FROM rb;

-- Likewise after ROLLBACK TO SAVEPOINT, and after PREPARE TRANSACTION and
-- ROLLBACK PREPARED.
BEGIN;
SAVEPOINT s;
SELECT hilo_set_max_lo('rb', 7);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
BEGIN;
SELECT hilo_set_max_lo('rb', 20);
PREPARE TRANSACTION 'rb_resize';
ROLLBACK PREPARED 'rb_resize';
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;

-- hilo_bind() of a key not used yet, rolled back: the key stays bound, so
-- the ids handed out from the bound sequence inside the transaction (1 ..
-- 5) are not handed out again by a key created later from scratch.
CREATE TABLE rb_bind (id bigint);
CREATE SEQUENCE rb_bind_seq INCREMENT 5;
BEGIN;
SELECT hilo_bind('rb_bind', 'rb_bind_seq', 'pooled_lo');
SELECT hilo_next('rb_bind') AS from_bound_sequence;
ROLLBACK;
SELECT strategy, max_lo, sequence FROM id_gen.hilo_keys WHERE table_name = 'rb_bind'::regclass;
\c
SELECT hilo_next('rb_bind') AS next_session;

-- The transaction calling hilo_set_max_lo() may already have drawn from the
-- key: a key's own sequence is moved under the key lock alone, which a
-- draw holds only while it draws, so the worker does not wait for the
-- caller.
BEGIN;
INSERT INTO rb DEFAULT VALUES;
SELECT hilo_set_max_lo('rb', 50);
INSERT INTO rb SELECT FROM generate_series(1, 60);
COMMIT;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM rb;

-- Likewise for moving a key in use to an application's sequence after
-- drawing from the key: the worker commits the binding, and the calling
-- transaction drops the key's former own sequence (it waits, as DROP
-- SEQUENCE does, for other transactions that drew from it).
SELECT seq AS rb_own_seq FROM id_gen.hilo_key WHERE relid = 'rb'::regclass \gset
CREATE SEQUENCE rb_app_seq INCREMENT 10;
BEGIN;
INSERT INTO rb DEFAULT VALUES;
SELECT hilo_bind('rb', 'rb_app_seq', 'pooled_lo');
INSERT INTO rb SELECT FROM generate_series(1, 3) RETURNING id AS from_app_seq;
COMMIT;
SELECT to_regclass(:'rb_own_seq') IS NULL AS own_sequence_dropped;
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM rb;

-- A sequence an application may draw from (a bound key's) is locked while
-- it is moved, as ALTER SEQUENCE locks it.  A transaction that holds a lock
-- on it itself (it drew from the key, called nextval() or altered it)
-- would make the worker wait for the very transaction that waits for the
-- worker: refused at once, with SQLSTATE 55006.
\c
BEGIN;
INSERT INTO rb DEFAULT VALUES;	-- a new session: draws a block from rb_app_seq
SELECT hilo_set_max_lo('rb', 20); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN;
SELECT nextval('rb_app_seq') > 0 AS application_draws;
SELECT hilo_set_max_lo('rb', 20); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
-- In a transaction of its own it works, and moves the sequence forward.
SELECT hilo_set_max_lo('rb', 20);
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;

-- The worker cannot see a sequence created in the calling transaction, and
-- a binding that ROLLBACK does not undo must not name one that it would
-- remove: refused (55000) unless the table is new in the transaction too.
CREATE TABLE rb_late (id bigint);
BEGIN;
CREATE SEQUENCE rb_late_seq INCREMENT 10;
SELECT hilo_bind('rb_late', 'rb_late_seq', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT count(*) AS no_key FROM id_gen.hilo_key WHERE relid = 'rb_late'::regclass;

-- A table created in the transaction: its key is created and changed in
-- that transaction and lives and dies with the table.  A block size changed
-- in a subtransaction that rolls back: the session stops using the block
-- it drew under the rolled-back size (100 .. 199), so the rows the
-- transaction commits stay unique (blocks of 10 reach 100 .. 109 again).
BEGIN;
CREATE TABLE rb_fresh (id bigint PRIMARY KEY DEFAULT hilo_next('rb_fresh'));
SELECT hilo_set_max_lo('rb_fresh', 10);
INSERT INTO rb_fresh SELECT FROM generate_series(1, 29);	-- hi 0, 1, 2 used up
SAVEPOINT s;
SELECT hilo_set_max_lo('rb_fresh', 100);
INSERT INTO rb_fresh DEFAULT VALUES RETURNING id AS in_savepoint;
ROLLBACK TO SAVEPOINT s;
INSERT INTO rb_fresh SELECT FROM generate_series(1, 400);
COMMIT;
SELECT count(*), count(DISTINCT id), max(id) FROM rb_fresh;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb_fresh'::regclass;
