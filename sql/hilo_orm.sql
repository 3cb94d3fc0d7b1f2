-- ORM hi tables: hilo_bind_table() makes a table's key serve the row an ORM
-- keeps its hi value in (Hibernate's and NHibernate's
-- hibernate_unique_key.next_hi, Hibernate's hibernate_sequences), so that
-- ids the ORM computes and ids of hilo_next() share one key space.  A
-- trigger of the extension on the hi table replaces what the ORM writes
-- into the row with the key sequence's next value: the ORM's next reader
-- reads a hi that no hilo_next() draws.  No worker, nothing outside the
-- caller's backend.  Sessions interleaving are in test/specs/hilo_orm.spec,
-- the real Hibernate 3.6 in test/t/051_hibernate.pl.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE.
-- Objects live in a schema of their own: other files use the same names.
CREATE SCHEMA hilo_orm;
GRANT USAGE ON SCHEMA hilo_orm TO PUBLIC;
SET search_path = hilo_orm, public;

-- What the ORM does to take a block (Hibernate's and NHibernate's
-- <generator class="hilo">): read the row, write it back plus one, commit,
-- use the value read: ids hi*(max_lo+1) .. hi*(max_lo+1)+max_lo.
CREATE FUNCTION orm_take(hi_table regclass, hi_column text, where_clause text DEFAULT 'true')
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    hi bigint;
BEGIN
    EXECUTE format('SELECT %I FROM %s WHERE %s FOR UPDATE', hi_column, hi_table, where_clause) INTO hi;
    EXECUTE format('UPDATE %s SET %I = %I + 1 WHERE %I = $1 AND %s', hi_table, hi_column, hi_column,
                   hi_column, where_clause) USING hi;
    RETURN hi;
END $$;

CREATE TABLE hibernate_unique_key (next_hi integer);
INSERT INTO hibernate_unique_key VALUES (0);
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), who text);
INSERT INTO orders (who) SELECT 'sql' FROM generate_series(1, 3);
SELECT hilo_bind_table('orders', 'hibernate_unique_key', 'next_hi', 4);
-- The key takes the ORM's formula (legacy, max_lo 4) and the hi table gets
-- the trigger; the row now holds a value of the key's sequence, above every
-- hi the ORM read (0) and every id the key gave (1 .. 3, in a block up to 999).
SELECT table_name, strategy, max_lo, sequence, hi_table FROM id_gen.hilo_keys WHERE table_name = 'orders'::regclass;
\d hibernate_unique_key
SELECT next_hi FROM hibernate_unique_key;
-- This session uses up its block, then draws blocks of 5 ids; the ORM takes
-- blocks in between; every id once (the primary key would say otherwise).
INSERT INTO orders (who) SELECT 'sql' FROM generate_series(1, 996);
INSERT INTO orders SELECT h * 5 + lo, 'orm' FROM orm_take('hibernate_unique_key', 'next_hi') h,
                                                  generate_series(0, 4) lo;
INSERT INTO orders (who) SELECT 'sql' FROM generate_series(1, 7);
INSERT INTO orders SELECT h * 5 + lo, 'orm' FROM orm_take('hibernate_unique_key', 'next_hi') h,
                                                  generate_series(0, 4) lo;
SELECT who, count(*), count(DISTINCT id) FROM orders GROUP BY who ORDER BY who;
-- The ORM's rollback puts back the value its reader did not use; the next
-- reader uses it, once.
BEGIN;
SELECT orm_take('hibernate_unique_key', 'next_hi') AS read_then_rolled_back \gset
ROLLBACK;
SELECT orm_take('hibernate_unique_key', 'next_hi') = :read_then_rolled_back AS next_reader_gets_it;
-- An ORM that deletes its row and inserts it again (a schema tool) reads a
-- parked value too.
DELETE FROM hibernate_unique_key;
INSERT INTO hibernate_unique_key VALUES (0);
SELECT next_hi > 0 AS parked_on_insert FROM hibernate_unique_key;
-- Binding again just so changes nothing; another formula or row is refused.
SELECT hilo_bind_table('orders', 'hibernate_unique_key', 'next_hi', 4);
SELECT hilo_bind_table('orders', 'hibernate_unique_key', 'next_hi', 5); \echo :LAST_ERROR_SQLSTATE
-- The ORM keeps its max_lo with the hi values it reads: the key's block
-- size cannot change alone.
SELECT hilo_set_max_lo('orders', 10); \echo :LAST_ERROR_SQLSTATE
-- Ranges work as for any key.
SELECT last_id - first_id + 1 AS ids FROM hilo_reserve('orders', 10);

-- The trigger must stay: disabled (or dropped, or the hi table dropped and
-- created again, or restored with --disable-triggers), the ORM counts on
-- its own into the key's ids; hilo_next() refuses until the owner binds
-- the table again, which moves the key above what the ORM read meanwhile.
ALTER TABLE hibernate_unique_key DISABLE TRIGGER id_gen_hilo_orders;
\c
SET search_path = hilo_orm, public;
INSERT INTO orders (who) VALUES ('sql'); \echo :LAST_ERROR_SQLSTATE
INSERT INTO orders SELECT h * 5 + lo, 'orm' FROM orm_take('hibernate_unique_key', 'next_hi') h,
                                                  generate_series(0, 4) lo;
SELECT hilo_bind_table('orders', 'hibernate_unique_key', 'next_hi', 4);
INSERT INTO orders (who) SELECT 'sql' FROM generate_series(1, 7);
INSERT INTO orders SELECT h * 5 + lo, 'orm' FROM orm_take('hibernate_unique_key', 'next_hi') h,
                                                  generate_series(0, 4) lo;
SELECT who, count(*), count(DISTINCT id) FROM orders GROUP BY who ORDER BY who;
-- Enabled for ordinary sessions only is not enough: logical replication's
-- apply worker and replica-mode sessions would skip it.
ALTER TABLE hibernate_unique_key ENABLE TRIGGER id_gen_hilo_orders;
\c
SET search_path = hilo_orm, public;
INSERT INTO orders (who) VALUES ('sql'); \echo :LAST_ERROR_SQLSTATE
ALTER TABLE hibernate_unique_key ENABLE ALWAYS TRIGGER id_gen_hilo_orders;
INSERT INTO orders (who) VALUES ('sql');
-- After a load with explicit ids the owner's hilo_set_floor() moves the key
-- and parks a value above it for the ORM's next reader.
INSERT INTO orders VALUES (900000, 'load');
SELECT hilo_set_floor('orders');
SELECT next_hi * 5 > 900000 AS orm_reads_above_the_load FROM hibernate_unique_key;
-- A trigger another role plants with the extension's function parks no
-- other key's values.
CREATE TABLE planted (next_hi bigint);
INSERT INTO planted VALUES (0);
CREATE TRIGGER steal BEFORE INSERT OR UPDATE ON planted FOR EACH ROW
    EXECUTE FUNCTION hilo_hi_row('next_hi', 'hilo_orm.orders_id_seq');
UPDATE planted SET next_hi = 1; \echo :LAST_ERROR_SQLSTATE
DROP TABLE planted;

-- Hibernate's MultipleHiLoPerTableGenerator: one row per entity in
-- hibernate_sequences, chosen by sequence_name; only that row is parked.
CREATE TABLE hibernate_sequences (sequence_name varchar(255), sequence_next_hi_value integer);
INSERT INTO hibernate_sequences VALUES ('items', 7), ('other', 3);
CREATE TABLE items (id bigint PRIMARY KEY DEFAULT hilo_next('items'));
SELECT hilo_bind_table('items', 'hibernate_sequences', 'sequence_next_hi_value', 9,
                       key_column => 'sequence_name', key_value => 'items');
SELECT * FROM hibernate_sequences ORDER BY sequence_name;
INSERT INTO items DEFAULT VALUES RETURNING id;
SELECT orm_take('hibernate_sequences', 'sequence_next_hi_value', 'sequence_name = ''other''') AS other_entity;
SELECT * FROM hibernate_sequences ORDER BY sequence_name;

-- NHibernate's per-entity row (<param name="where">), with names that need
-- quotes, an integer key column and a bigint hi column; the key value is
-- a literal, never SQL text.
CREATE SCHEMA "ORM Schema";
CREATE TABLE "ORM Schema"."Hi Keys" ("Entity" integer, "Next Hi" bigint);
INSERT INTO "ORM Schema"."Hi Keys" VALUES (1, 0), (2, 100);
CREATE TABLE entity2 (id bigint PRIMARY KEY DEFAULT hilo_next('entity2'));
SELECT hilo_bind_table('entity2', '"ORM Schema"."Hi Keys"', 'Next Hi', 2, 'legacy', 'Entity', '2');
SELECT * FROM "ORM Schema"."Hi Keys" ORDER BY 1;
CREATE TABLE quoted_keys (k text, hi integer);
INSERT INTO quoted_keys VALUES ('x''; DROP TABLE quoted_keys; --', 0), ('x', 50);
CREATE TABLE quoted (id bigint PRIMARY KEY DEFAULT hilo_next('quoted'));
SELECT hilo_bind_table('quoted', 'quoted_keys', 'hi', 9, 'legacy', 'k', 'x''; DROP TABLE quoted_keys; --');
SELECT * FROM quoted_keys ORDER BY k;

-- classic: hi*max_lo .. hi*max_lo+max_lo-1.
CREATE TABLE classic_hi (hi bigint);
INSERT INTO classic_hi VALUES (5);
CREATE TABLE classic (id bigint PRIMARY KEY DEFAULT hilo_next('classic'));
SELECT hilo_bind_table('classic', 'classic_hi', 'hi', 10, 'classic');
INSERT INTO classic SELECT FROM generate_series(1, 11);
INSERT INTO classic SELECT h * 10 + lo FROM orm_take('classic_hi', 'hi') h, generate_series(0, 9) lo;
SELECT count(*), count(DISTINCT id) FROM classic;

-- A binding is the owner's DDL: rolled back, the table keeps its key, the
-- hi table has no trigger and its row is as it was.
CREATE TABLE rb_hi (next_hi integer);
INSERT INTO rb_hi VALUES (0);
CREATE TABLE rb (id bigint PRIMARY KEY DEFAULT hilo_next('rb'));
BEGIN;
SELECT hilo_bind_table('rb', 'rb_hi', 'next_hi', 2);
SELECT hilo_next('rb'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT strategy, hi_table FROM id_gen.hilo_keys WHERE table_name = 'rb'::regclass;
SELECT next_hi FROM rb_hi;
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'rb_hi'::regclass;

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
-- A key bound to an application's sequence cannot serve a hi table.
CREATE TABLE used (id bigint PRIMARY KEY DEFAULT hilo_next('used'));
CREATE SEQUENCE used_seq;
SELECT hilo_bind('used', 'used_seq', 'legacy', 2);
SELECT hilo_bind_table('used', 'rb_hi', 'next_hi', 2); \echo :LAST_ERROR_SQLSTATE

-- Privileges: binding needs the ownership of both tables (the trigger on
-- the hi table is enabled always); drawing needs INSERT on the table only
-- (the ORM needs what it needs on its hi table, as without us).
CREATE ROLE regress_orm_owner;
CREATE ROLE regress_orm_writer;
CREATE TABLE priv_hi (entity text, next_hi integer);
INSERT INTO priv_hi VALUES ('priv', 0);
GRANT SELECT, UPDATE, TRIGGER ON priv_hi TO regress_orm_owner;
GRANT CREATE ON SCHEMA hilo_orm TO regress_orm_owner;
SET ROLE regress_orm_owner;
CREATE TABLE priv (id bigint PRIMARY KEY DEFAULT hilo_next('priv'));
GRANT INSERT ON priv TO regress_orm_writer;
RESET ROLE;
SET ROLE regress_orm_writer;
SELECT hilo_bind_table('priv', 'priv_hi', 'next_hi', 2, 'legacy', 'entity', 'priv'); \echo :LAST_ERROR_SQLSTATE
SET ROLE regress_orm_owner;
SELECT hilo_bind_table('priv', 'priv_hi', 'next_hi', 2, 'legacy', 'entity', 'priv'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
ALTER TABLE priv_hi OWNER TO regress_orm_owner;
SET ROLE regress_orm_owner;
SELECT hilo_bind_table('priv', 'priv_hi', 'next_hi', 2, 'legacy', 'entity', 'priv');
SET ROLE regress_orm_writer;
INSERT INTO priv DEFAULT VALUES;
RESET ROLE;
SELECT count(*) FROM priv;
DROP TABLE priv;
DROP TABLE priv_hi;
REVOKE CREATE ON SCHEMA hilo_orm FROM regress_orm_owner;
DROP ROLE regress_orm_owner;
DROP ROLE regress_orm_writer;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hilo_orm, "ORM Schema" CASCADE;
RESET client_min_messages;
