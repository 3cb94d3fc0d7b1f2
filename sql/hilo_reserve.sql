-- Hi/Lo for applications: hilo_reserve() hands application code ranges of
-- a key's ids, hilo_next_text() writes ids as '<table>/<n>-<node tag>'.
-- Interleavings of sessions are in test/specs/hilo_reserve.spec, crashes
-- and many clients in test/t/019_hilo_reserve.pl.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE.

-- A key with blocks of 10; the first value (START 1) is the one id 1.
CREATE TABLE app (id bigint PRIMARY KEY DEFAULT hilo_next('app'), who text);
SELECT hilo_create_key('app', max_lo => 10);
INSERT INTO app (who) VALUES ('sql') RETURNING id;

-- A range is whole blocks, at least n ids, above every block drawn before;
-- adjacent blocks come back as one range.
SELECT * FROM hilo_reserve('app', 25);
SELECT * FROM hilo_reserve('app', 1);
SELECT * FROM hilo_reserve('app', 10);
SELECT * FROM hilo_reserve('app');                      -- one block
SELECT last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'app'::regclass;
-- The session's own hilo_next block is untouched; the next block is above.
INSERT INTO app (who) SELECT 'sql' FROM generate_series(1, 2) RETURNING id;
-- As many blocks as asked (a role that may use the key's sequence could draw
-- them with nextval() too): one range when no one else drew in between.
SELECT first_id, last_id, last_id - first_id + 1 AS ids FROM hilo_reserve('app', 641);

-- Another writer of the same sequence between two blocks: the range comes
-- back as two rows, never as an error (its blocks are not adjacent).
-- (The interleaving itself is in test/specs/hilo_reserve.spec.)

-- Not undone by ROLLBACK, ROLLBACK TO SAVEPOINT or ROLLBACK PREPARED: the
-- next range starts above the one the rolled-back transaction got.
BEGIN;
SELECT * FROM hilo_reserve('app', 10);
ROLLBACK;
BEGIN;
SAVEPOINT s;
SELECT * FROM hilo_reserve('app', 10);
ROLLBACK TO SAVEPOINT s;
COMMIT;
BEGIN;
SELECT * FROM hilo_reserve('app', 10);
PREPARE TRANSACTION 'reserve_rb';
ROLLBACK PREPARED 'reserve_rb';
SELECT * FROM hilo_reserve('app', 10);
-- In the transaction that altered the key's sequence, no range: a ROLLBACK
-- would bring the sequence back as it was, which gives those ids again.
BEGIN;
ALTER SEQUENCE app_id_seq INCREMENT BY 20;
SELECT * FROM hilo_reserve('app', 10); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;

-- Readable ids: '<table>/<n>-<node tag>'; the table schema-qualified unless
-- in public, quoted where SQL needs it; the tag from id_gen.node_tag
-- (superuser, or postgresql.conf).
SELECT hilo_next_text('app') ~ '^app/[0-9]+-A$' AS default_tag;
SET id_gen.node_tag = 'eu_1';
CREATE SCHEMA "Sales Dept";
CREATE TABLE "Sales Dept"."Order/Items" (id text PRIMARY KEY DEFAULT hilo_next_text('"Sales Dept"."Order/Items"'));
SELECT hilo_create_key('"Sales Dept"."Order/Items"', max_lo => 10);
INSERT INTO "Sales Dept"."Order/Items" SELECT FROM generate_series(1, 3) RETURNING id;
SELECT p.*, p.table_name::regclass AS tbl
  FROM "Sales Dept"."Order/Items" i, hilo_parse_text(i.id) p ORDER BY p.n;
SELECT * FROM hilo_parse_text('orders/54-A');
SET id_gen.node_tag = 'no-dash'; \echo :LAST_ERROR_SQLSTATE
SET id_gen.node_tag = ''; \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_parse_text('orders/054-A'); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_parse_text('orders/9223372036854775808-A'); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_parse_text('orders54-A'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_parse_text(NULL) IS NULL AS strict;
RESET id_gen.node_tag;

-- Bad input (more in hilo_errors.sql).
SELECT * FROM hilo_reserve('app', -5); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve('no_such_table'); \echo :LAST_ERROR_SQLSTATE
CREATE VIEW app_v AS SELECT * FROM app;
SELECT * FROM hilo_reserve('app_v'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next_text(NULL); \echo :LAST_ERROR_SQLSTATE

-- Privileges: what nextval() needs on the key's sequence (USAGE or UPDATE;
-- INSERT on the table is not enough), checked at every call (a REVOKE in the
-- middle of a session counts at once); a table owned by another role is
-- refused before anything is drawn.
CREATE ROLE regress_reserve_app;
CREATE ROLE regress_reserve_other;
GRANT CREATE ON SCHEMA public TO regress_reserve_other;
GRANT INSERT ON app TO regress_reserve_app;
SET ROLE regress_reserve_app;
SELECT * FROM hilo_reserve('app', 10); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT USAGE ON SEQUENCE app_id_seq TO regress_reserve_app;
SET ROLE regress_reserve_app;
SELECT last_id - first_id + 1 AS ids FROM hilo_reserve('app', 10);
RESET ROLE;
REVOKE INSERT ON app FROM regress_reserve_app;
REVOKE USAGE ON SEQUENCE app_id_seq FROM regress_reserve_app;
SET ROLE regress_reserve_app;
SELECT * FROM hilo_reserve('app', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next_text('app'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SET ROLE regress_reserve_other;
CREATE TABLE others (id bigint PRIMARY KEY DEFAULT hilo_next('others'));
SELECT hilo_create_key('others');
RESET ROLE;
SET ROLE regress_reserve_app;
SELECT * FROM hilo_reserve('others', 10); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT last_hi AS nothing_drawn_from_others FROM id_gen.hilo_keys WHERE table_name = 'others'::regclass;
DROP TABLE others;
REVOKE CREATE ON SCHEMA public FROM regress_reserve_other;
DROP OWNED BY regress_reserve_app, regress_reserve_other;
DROP ROLE regress_reserve_app, regress_reserve_other;

-- No id was handed out twice: the rows, the ranges and the text ids above.
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM app;
DROP VIEW app_v;
DROP TABLE app, "Sales Dept"."Order/Items";
DROP SCHEMA "Sales Dept";
