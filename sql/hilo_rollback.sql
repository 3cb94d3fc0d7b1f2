-- Hi/Lo: what ROLLBACK does and does not undo.
--
-- hilo_next() draws hi values from a sequence: no rollback gives a block
-- back.  hilo_set_max_lo(), hilo_bind() and hilo_set_adaptive() are the
-- owner's DDL of the table's default: a rollback restores the formula, and
-- the sequence, which they only ever move forward with setval(), is not
-- moved back.  So that no id drawn under a formula a rollback removes can
-- come again, the transaction (or subtransaction) that changed a key, or
-- ALTERed its sequence, draws no new block from it.  Other sessions
-- interleaving with such a transaction are in test/specs.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE:
-- the output shows the error as a client sees it, then its SQLSTATE.

-- A key with blocks of 10 (its first, 10 .. 19, above every id the
-- initial size could have given: none was drawn, and ids start at 1).
CREATE TABLE rb (id bigint PRIMARY KEY DEFAULT hilo_next('rb'));
SELECT hilo_set_max_lo('rb', 10);
SELECT hilo_set_adaptive('rb', false);
INSERT INTO rb SELECT FROM generate_series(1, 25);
SELECT max(id), last_hi, reserved_to FROM rb, id_gen.hilo_keys WHERE table_name = 'rb'::regclass
 GROUP BY last_hi, reserved_to;
\c

-- A block size changed in a transaction: the transaction may not draw a
-- block under it (after a ROLLBACK the old size would give those ids again).
BEGIN;
SELECT hilo_set_max_lo('rb', 100);
INSERT INTO rb DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
INSERT INTO rb DEFAULT VALUES RETURNING id AS after_rollback;
-- A block the session already holds is used across a change: it was drawn
-- under the old size, below every block of the new one.
BEGIN;
SELECT hilo_set_max_lo('rb', 5);
INSERT INTO rb DEFAULT VALUES RETURNING id AS from_the_block_in_hand;
ROLLBACK;
SELECT max_lo, last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
\c
INSERT INTO rb SELECT FROM generate_series(1, 300);
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM rb;

-- ROLLBACK TO SAVEPOINT undoes the change and its lock: the transaction
-- draws again, under the size it had.
BEGIN;
SAVEPOINT s;
SELECT hilo_set_max_lo('rb', 7);
INSERT INTO rb DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
ROLLBACK TO SAVEPOINT s;
INSERT INTO rb SELECT FROM generate_series(1, 20);
COMMIT;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
-- PREPARE TRANSACTION and ROLLBACK PREPARED.
BEGIN;
SELECT hilo_set_max_lo('rb', 20);
PREPARE TRANSACTION 'rb_resize';
ROLLBACK PREPARED 'rb_resize';
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM rb;

-- ALTER SEQUENCE is transactional too: after ALTER SEQUENCE r INCREMENT 10,
-- draws and a ROLLBACK, a sequence gives again what it gave inside the
-- transaction.  A key's sequence altered in a transaction gives that
-- transaction no block.
\c
BEGIN;
ALTER SEQUENCE rb_id_seq RESTART 3;
INSERT INTO rb DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
INSERT INTO rb SELECT FROM generate_series(1, 20);
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM rb;

-- hilo_bind() rolled back: the table keeps its own key, and the bound
-- sequence is where the bind left it (forward only).
CREATE TABLE rb_bind (id bigint DEFAULT hilo_next('rb_bind'));
INSERT INTO rb_bind DEFAULT VALUES;
CREATE SEQUENCE rb_bind_seq INCREMENT 5;
BEGIN;
SELECT hilo_bind('rb_bind', 'rb_bind_seq', 'pooled_lo');
SELECT hilo_next('rb_bind'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT strategy, max_lo, sequence FROM id_gen.hilo_keys WHERE table_name = 'rb_bind'::regclass;
-- (995: its next value, 1000, starts above the ids 1 .. 999 of the own
-- key's first block)
SELECT last_value, is_called FROM rb_bind_seq;
\c
SELECT hilo_next('rb_bind') AS next_session;

-- A table created in the transaction goes with a ROLLBACK, and its key
-- with it: that transaction changes and draws from the key freely.  In a
-- subtransaction it may not (the table would survive its rollback).
BEGIN;
CREATE TABLE rb_fresh (id bigint PRIMARY KEY DEFAULT hilo_next('rb_fresh'));
SELECT hilo_set_max_lo('rb_fresh', 10);
INSERT INTO rb_fresh SELECT FROM generate_series(1, 29);
SAVEPOINT s;
SELECT hilo_set_max_lo('rb_fresh', 100);
INSERT INTO rb_fresh SELECT FROM generate_series(1, 10); \echo :LAST_ERROR_SQLSTATE
ROLLBACK TO SAVEPOINT s;
RELEASE SAVEPOINT s;
INSERT INTO rb_fresh SELECT FROM generate_series(1, 400);
COMMIT;
SELECT count(*), count(DISTINCT id), max(id) FROM rb_fresh;
SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'rb_fresh'::regclass;
