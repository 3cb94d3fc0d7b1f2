-- ORM hi tables: hilo_bind_table() binds a key to the row an ORM keeps its
-- hi value in (Hibernate's and NHibernate's hibernate_unique_key.next_hi,
-- Hibernate's hibernate_sequences), so that ids the ORM computes and ids of
-- hilo_next() share one key space.  Each block advances the row as the ORM
-- does, in a transaction of its own.  Sessions waiting on the row are in
-- test/specs/hilo_orm.spec, the real Hibernate 3.6 in test/t/051_hibernate.pl.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE.
-- Objects live in a schema of their own: other files use the same names.
CREATE SCHEMA hilo_orm;
GRANT USAGE ON SCHEMA hilo_orm TO PUBLIC;
SET search_path = hilo_orm, public;

-- Hibernate's and NHibernate's <generator class="hilo">: one row, next_hi,
-- block hi*(max_lo+1) .. hi*(max_lo+1)+max_lo (0 skipped for hi 0).
CREATE TABLE hibernate_unique_key (next_hi integer);
INSERT INTO hibernate_unique_key VALUES (0);
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), who text);
SELECT hilo_bind_table('orders', 'hibernate_unique_key', 'next_hi', 4);
SELECT relid, hi_table, hi_column, key_column, key_value, strategy, max_lo FROM id_gen.hilo_orm_key;
-- No sequence key: the view of sequence keys does not list it.
SELECT count(*) FROM id_gen.hilo_keys WHERE table_name = 'orders'::regclass;
INSERT INTO orders (who) SELECT 'sql' FROM generate_series(1, 5) RETURNING id;   -- hi 0: 1..4, hi 1: 5..9
SELECT next_hi FROM hibernate_unique_key;
-- The ORM takes the next hi as Hibernate does (its block is 10..14) ...
BEGIN;
SELECT next_hi FROM hibernate_unique_key FOR UPDATE;
UPDATE hibernate_unique_key SET next_hi = 3 WHERE next_hi = 2;
COMMIT;
-- ... and hilo_next goes on in its block, then skips the ORM's.
INSERT INTO orders (who) SELECT 'sql' FROM generate_series(1, 6) RETURNING id;    -- 6..9, then hi 3: 15, 16
SELECT next_hi FROM hibernate_unique_key;
-- Binding again just so changes nothing; anything else is refused.
SELECT hilo_bind_table('orders', 'hibernate_unique_key', 'next_hi', 4);
SELECT hilo_bind_table('orders', 'hibernate_unique_key', 'next_hi', 5); \echo :LAST_ERROR_SQLSTATE
-- The sequence-key functions do not apply to it (no sequence key is made).
SELECT hilo_set_max_lo('orders', 10); \echo :LAST_ERROR_SQLSTATE
CREATE SEQUENCE orders_seq;
SELECT hilo_bind('orders', 'orders_seq', 'legacy', 4); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve('orders', 5); \echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM id_gen.hilo_key WHERE relid = 'orders'::regclass;

-- Hibernate's MultipleHiLoPerTableGenerator: one row per entity in
-- hibernate_sequences, chosen by sequence_name; only that row moves.
CREATE TABLE hibernate_sequences (sequence_name varchar(255), sequence_next_hi_value integer);
INSERT INTO hibernate_sequences VALUES ('items', 7), ('other', 3);
CREATE TABLE items (id bigint PRIMARY KEY DEFAULT hilo_next('items'));
SELECT hilo_bind_table('items', 'hibernate_sequences', 'sequence_next_hi_value', 9,
                       key_column => 'sequence_name', key_value => 'items');
INSERT INTO items DEFAULT VALUES RETURNING id;                                    -- hi 7: 70..79
SELECT * FROM hibernate_sequences ORDER BY sequence_name;

-- NHibernate's per-entity row (<param name="where">), with names that need
-- quotes, an integer key column and a bigint hi column.
CREATE SCHEMA "ORM Schema";
CREATE TABLE "ORM Schema"."Hi Keys" ("Entity" integer, "Next Hi" bigint);
INSERT INTO "ORM Schema"."Hi Keys" VALUES (1, 0), (2, 100);
CREATE TABLE entity2 (id bigint PRIMARY KEY DEFAULT hilo_next('entity2'));
SELECT hilo_bind_table('entity2', '"ORM Schema"."Hi Keys"', 'Next Hi', 2, 'legacy', 'Entity', '2');
INSERT INTO entity2 SELECT FROM generate_series(1, 4) RETURNING id;              -- hi 100: 300..302, hi 101: 303
SELECT * FROM "ORM Schema"."Hi Keys" ORDER BY 1;
SELECT hi_table, hi_column, key_column, key_value FROM id_gen.hilo_orm_key WHERE relid = 'entity2'::regclass;

-- A key value is a parameter, never SQL text.
CREATE TABLE quoted_keys (k text, hi integer);
INSERT INTO quoted_keys VALUES ('x''; DROP TABLE quoted_keys; --', 0), ('x', 50);
CREATE TABLE quoted (id bigint PRIMARY KEY DEFAULT hilo_next('quoted'));
SELECT hilo_bind_table('quoted', 'quoted_keys', 'hi', 9, 'legacy', 'k', 'x''; DROP TABLE quoted_keys; --');
INSERT INTO quoted DEFAULT VALUES RETURNING id;                                   -- hi 0: 1
SELECT * FROM quoted_keys ORDER BY hi;

-- classic: hi*max_lo .. hi*max_lo+max_lo-1.
CREATE TABLE classic_hi (hi bigint);
INSERT INTO classic_hi VALUES (5);
CREATE TABLE classic (id bigint PRIMARY KEY DEFAULT hilo_next('classic'));
SELECT hilo_bind_table('classic', 'classic_hi', 'hi', 10, 'classic');
INSERT INTO classic SELECT FROM generate_series(1, 11) RETURNING id;              -- 50..59, 60

-- ROLLBACK and ROLLBACK TO SAVEPOINT after a draw: the row stays advanced
-- (committed by the key worker) and no id is handed out twice.
CREATE TABLE rb_hi (next_hi integer);
INSERT INTO rb_hi VALUES (0);
CREATE TABLE rb (id bigint PRIMARY KEY DEFAULT hilo_next('rb'));
SELECT hilo_bind_table('rb', 'rb_hi', 'next_hi', 2);
BEGIN;
SELECT hilo_next('rb') FROM generate_series(1, 3);                               -- hi 0: 1, 2; hi 1: 3
ROLLBACK;
SELECT next_hi FROM rb_hi;
BEGIN;
SAVEPOINT s;
SELECT hilo_next('rb') FROM generate_series(1, 3);                               -- 4, 5; hi 2: 6
ROLLBACK TO SAVEPOINT s;
SELECT next_hi FROM rb_hi;
COMMIT;
SELECT hilo_next('rb');                                                           -- 7
SELECT next_hi FROM rb_hi;
-- ROLLBACK PREPARED likewise.
BEGIN;
SELECT hilo_next('rb'), hilo_next('rb'), hilo_next('rb');                         -- 8; hi 3: 9, 10
PREPARE TRANSACTION 'orm_rb';
ROLLBACK PREPARED 'orm_rb';
SELECT next_hi FROM rb_hi;
SELECT hilo_next('rb');                                                           -- 11
-- A row that cannot move on (its type's end): an error, nothing handed out.
CREATE TABLE small_hi (next_hi smallint);
INSERT INTO small_hi VALUES (32767);
CREATE TABLE small (id bigint PRIMARY KEY DEFAULT hilo_next('small'));
SELECT hilo_bind_table('small', 'small_hi', 'next_hi', 2);
SELECT hilo_next('small'); \echo :LAST_ERROR_SQLSTATE
SELECT next_hi FROM small_hi;
-- A binding draws nothing before it commits (issue 16, defect 5): the worker
-- commits each block, and a rolled-back binding would leave the table to a
-- sequence key that hands out the same ids again.  ROLLBACK TO SAVEPOINT
-- likewise.
CREATE TABLE rb2_hi (next_hi integer);
INSERT INTO rb2_hi VALUES (0);
CREATE TABLE rb2 (id bigint PRIMARY KEY DEFAULT hilo_next('rb2'));
BEGIN;
SELECT hilo_bind_table('rb2', 'rb2_hi', 'next_hi', 2);
SELECT hilo_next('rb2'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT count(*) FROM id_gen.hilo_orm_key WHERE relid = 'rb2'::regclass;
SELECT next_hi FROM rb2_hi;                                                      -- 0
BEGIN;
SAVEPOINT s;
SELECT hilo_bind_table('rb2', 'rb2_hi', 'next_hi', 2);
SELECT hilo_next('rb2'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK TO SAVEPOINT s;
SELECT hilo_next('rb2') FROM generate_series(1, 3);                              -- a sequence key: 1, 2, 3
COMMIT;
SELECT next_hi FROM rb2_hi;                                                      -- 0
-- Committed, the binding draws.
CREATE TABLE rb3 (id bigint PRIMARY KEY DEFAULT hilo_next('rb3'));
BEGIN;
SELECT hilo_bind_table('rb3', 'rb2_hi', 'next_hi', 2);
COMMIT;
SELECT hilo_next('rb3');                                                         -- hi 0: 1

-- Ids already in the table (written past the ORM) are not looked for: a
-- draw reads the hi row only and hands out the block the ORM itself would,
-- as a sequence would.  Before, every draw read the table (issue 25).
CREATE TABLE floor_hi (next_hi integer);
INSERT INTO floor_hi VALUES (4);
CREATE TABLE floored (id bigint PRIMARY KEY DEFAULT hilo_next('floored'));
INSERT INTO floored VALUES (22);
SELECT hilo_bind_table('floored', 'floor_hi', 'next_hi', 4);
INSERT INTO floored SELECT FROM generate_series(1, 2) RETURNING id;               -- hi 4: 20, 21
-- 22 next, as the ORM would hand it out.
INSERT INTO floored DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
SELECT next_hi FROM floor_hi;                                                    -- 5

-- Bad input.
SELECT hilo_bind_table(NULL, 'rb_hi', 'next_hi', 2); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('rb', NULL, 'next_hi', 2); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('rb', 'rb_hi', NULL, 2); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('rb', 'rb_hi', 'next_hi', NULL); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('rb', 'rb_hi', 'next_hi', 2, NULL); \echo :LAST_ERROR_SQLSTATE
CREATE TABLE bad (id bigint PRIMARY KEY DEFAULT hilo_next('bad'));
SELECT hilo_bind_table('bad', 'hibernate_sequences', 'sequence_next_hi_value', 9, key_column => 'sequence_name'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'rb_hi', 'next_hi', 0); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'rb_hi', 'next_hi', 2, 'pooled'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'no_such_table', 'next_hi', 2); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'rb_hi', 'no_such_column', 2); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'hibernate_sequences', 'sequence_next_hi_value', 9, 'legacy', 'no_such_column', 'x'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'hibernate_sequences', 'sequence_name', 9, 'legacy', 'sequence_name', 'items'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'hibernate_sequences', 'sequence_next_hi_value', 9, 'legacy', 'sequence_name', 'bad'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'hibernate_sequences', 'sequence_next_hi_value', 9); \echo :LAST_ERROR_SQLSTATE
CREATE TABLE null_hi (next_hi integer);
INSERT INTO null_hi VALUES (NULL);
SELECT hilo_bind_table('bad', 'null_hi', 'next_hi', 2); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('bad', 'id_gen.hilo_keys', 'max_lo', 2); \echo :LAST_ERROR_SQLSTATE
CREATE UNLOGGED TABLE unlogged_hi (next_hi integer);
INSERT INTO unlogged_hi VALUES (0);
SELECT hilo_bind_table('bad', 'unlogged_hi', 'next_hi', 2); \echo :LAST_ERROR_SQLSTATE
BEGIN;
CREATE TABLE new_hi (next_hi integer);
INSERT INTO new_hi VALUES (0);
SELECT hilo_bind_table('bad', 'new_hi', 'next_hi', 2); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
-- A table whose sequence key is in use cannot be bound.
CREATE TABLE used (id bigint PRIMARY KEY DEFAULT hilo_next('used'));
CREATE SEQUENCE used_seq;
SELECT hilo_bind('used', 'used_seq', 'legacy', 2);
INSERT INTO used DEFAULT VALUES;
SELECT hilo_bind_table('used', 'rb_hi', 'next_hi', 2); \echo :LAST_ERROR_SQLSTATE
-- A read-only transaction cannot advance the row.
CREATE TABLE ro_hi (next_hi integer);
INSERT INTO ro_hi VALUES (0);
CREATE TABLE ro (id bigint PRIMARY KEY DEFAULT hilo_next('ro'));
SELECT hilo_bind_table('ro', 'ro_hi', 'next_hi', 2);
BEGIN READ ONLY;
SELECT hilo_next('ro'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;

-- A transaction that locked the hi row itself would wait for its own key
-- worker: refused at once.
CREATE TABLE self_hi (next_hi integer);
INSERT INTO self_hi VALUES (0);
CREATE TABLE self (id bigint PRIMARY KEY DEFAULT hilo_next('self'));
SELECT hilo_bind_table('self', 'self_hi', 'next_hi', 2);
BEGIN;
SELECT next_hi FROM self_hi FOR UPDATE;
SELECT hilo_next('self'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN;
SELECT next_hi FROM self_hi;
SELECT hilo_next('self');                                                         -- reading it is fine: 1
COMMIT;
-- Likewise a row written through a partition (or inheritance child) of a
-- partitioned hi table: the lock is on the partition, not the parent.
CREATE TABLE part_hi (entity text, next_hi integer) PARTITION BY LIST (entity);
CREATE TABLE part_hi_a PARTITION OF part_hi FOR VALUES IN ('a');
INSERT INTO part_hi VALUES ('a', 0);
CREATE TABLE part (id bigint PRIMARY KEY DEFAULT hilo_next('part'));
SELECT hilo_bind_table('part', 'part_hi', 'next_hi', 2, 'legacy', 'entity', 'a');
BEGIN;
SET LOCAL lock_timeout = '5s';
UPDATE part_hi_a SET next_hi = next_hi WHERE entity = 'a';
SELECT hilo_next('part'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT hilo_next('part');                                                         -- 1
CREATE TABLE inh_hi (next_hi integer);
CREATE TABLE inh_hi_child () INHERITS (inh_hi);
INSERT INTO inh_hi_child VALUES (0);
CREATE TABLE inh (id bigint PRIMARY KEY DEFAULT hilo_next('inh'));
SELECT hilo_bind_table('inh', 'inh_hi', 'next_hi', 2);
BEGIN;
SET LOCAL lock_timeout = '5s';
SELECT next_hi FROM ONLY inh_hi_child FOR UPDATE;
SELECT hilo_next('inh'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;

-- The row disappears, turns NULL, or the hi table goes: clear errors, and
-- nothing is handed out.
CREATE TABLE gone_hi (next_hi integer);
INSERT INTO gone_hi VALUES (0);
CREATE TABLE gone (id bigint PRIMARY KEY DEFAULT hilo_next('gone'));
SELECT hilo_bind_table('gone', 'gone_hi', 'next_hi', 2);
DELETE FROM gone_hi;
SELECT hilo_next('gone'); \echo :LAST_ERROR_SQLSTATE
INSERT INTO gone_hi VALUES (NULL);
SELECT hilo_next('gone'); \echo :LAST_ERROR_SQLSTATE
INSERT INTO gone_hi VALUES (5);
SELECT hilo_next('gone'); \echo :LAST_ERROR_SQLSTATE
DELETE FROM gone_hi WHERE next_hi IS NULL;
SELECT hilo_next('gone');                                                         -- hi 5: 15
ALTER TABLE gone_hi RENAME TO gone_hi_renamed;
SELECT hilo_next('gone'), hilo_next('gone'), hilo_next('gone'); \echo :LAST_ERROR_SQLSTATE
ALTER TABLE gone_hi_renamed RENAME TO gone_hi;
SELECT hilo_next('gone');                                                         -- hi 6: 18
-- A dropped table takes its binding along.
DROP TABLE gone;
SELECT count(*) FROM id_gen.hilo_orm_key WHERE hi_table LIKE '%gone_hi%';

-- Privileges: binding needs the table's ownership and UPDATE on the hi
-- table; drawing, INSERT on the table and SELECT, UPDATE on the hi table,
-- and the row is advanced as the drawing role (row security applies).
CREATE ROLE regress_orm_owner;
CREATE ROLE regress_orm_writer;
CREATE TABLE priv_hi (entity text, next_hi integer);
INSERT INTO priv_hi VALUES ('priv', 0);
GRANT SELECT ON priv_hi TO regress_orm_owner;
CREATE TABLE priv (id bigint PRIMARY KEY DEFAULT hilo_next('priv'));
ALTER TABLE priv OWNER TO regress_orm_owner;
GRANT INSERT, SELECT ON priv TO regress_orm_writer;
SET ROLE regress_orm_writer;
SELECT hilo_bind_table('priv', 'priv_hi', 'next_hi', 2, 'legacy', 'entity', 'priv'); \echo :LAST_ERROR_SQLSTATE
SET ROLE regress_orm_owner;
SELECT hilo_bind_table('priv', 'priv_hi', 'next_hi', 2, 'legacy', 'entity', 'priv'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT UPDATE ON priv_hi TO regress_orm_owner;
SET ROLE regress_orm_owner;
SELECT hilo_bind_table('priv', 'priv_hi', 'next_hi', 2, 'legacy', 'entity', 'priv');
SET ROLE regress_orm_writer;
INSERT INTO priv DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT SELECT, UPDATE ON priv_hi TO regress_orm_writer;
-- Row security hides the row from the writer: the key worker's transaction
-- runs as the writer (hilo.hpp, the security model), and finds no row.
ALTER TABLE priv_hi ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_other ON priv_hi TO regress_orm_writer USING (entity = 'other');
SET ROLE regress_orm_writer;
INSERT INTO priv DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT next_hi FROM priv_hi;
DROP POLICY only_other ON priv_hi;
CREATE POLICY own_row ON priv_hi TO regress_orm_writer USING (entity = 'priv');
SET ROLE regress_orm_writer;
INSERT INTO priv DEFAULT VALUES RETURNING id;                                     -- hi 0: 1
RESET ROLE;
SELECT next_hi FROM priv_hi;
DROP TABLE priv;
DROP TABLE priv_hi;
DROP ROLE regress_orm_owner;
DROP ROLE regress_orm_writer;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hilo_orm CASCADE;
RESET client_min_messages;
-- Dropping the tables dropped their bindings.
SELECT count(*) FROM id_gen.hilo_orm_key;
