-- Hi/Lo for applications: hilo_reserve() hands application code a range of
-- a key's ids, hilo_next_text() writes ids as '<table>/<n>-<node tag>'.
-- hilo_return() takes nothing back: a key never moves back.
-- Interleavings of sessions are in test/specs/hilo_reserve.spec, crashes
-- and many clients in test/t/019_hilo_reserve.pl.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE:
-- the output shows the error as a client sees it, then its SQLSTATE.

-- A key with blocks of 10; the session's own block holds 1 .. 9 (hi 0).
CREATE TABLE app (id bigint PRIMARY KEY DEFAULT hilo_next('app'), who text);
SELECT hilo_set_max_lo('app', 10);
INSERT INTO app (who) VALUES ('sql') RETURNING id;

-- A range is whole blocks, at least n ids, above every block drawn before.
SELECT * FROM hilo_reserve('app', 25);                  -- hi 1, 2, 3
SELECT * FROM hilo_reserve('app', 1);                   -- hi 4
SELECT * FROM hilo_reserve('app', 10);                  -- exactly one block: hi 5
SELECT last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'app'::regclass;
-- The session's own hilo_next block is untouched; the next block is above.
INSERT INTO app (who) SELECT 'sql' FROM generate_series(1, 9) RETURNING id;

-- Many blocks at once (one setval past the first value, not one per block).
SELECT first_id, last_id, last_id - first_id + 1 AS ids FROM hilo_reserve('app', 1000000);
SELECT last_hi FROM id_gen.hilo_keys WHERE table_name = 'app'::regclass;
-- At most 1048576 ids per call, the largest range the adaptive size gives:
-- a role that may only INSERT burns no key faster than it could draw it
-- (2^31 ids a call would use up a node's range of 2^43 in 4096 calls).
SELECT * FROM hilo_reserve('app', 1048577); \echo :LAST_ERROR_SQLSTATE
SELECT last_hi FROM id_gen.hilo_keys WHERE table_name = 'app'::regclass;

-- The textbook get_next_hi: n = max_lo gives the block of one hi, also
-- for hi 0, which lacks the id 0.
CREATE TABLE textbook (id bigint PRIMARY KEY DEFAULT hilo_next('textbook'));
SELECT hilo_set_max_lo('textbook', 10);
SELECT first_id / 10 AS hi, first_id % 10 AS lo, last_id FROM hilo_reserve('textbook', 10);
SELECT first_id / 10 AS hi, first_id % 10 AS lo, last_id FROM hilo_reserve('textbook', 10);

-- A key made for a table with rows (with the session's id_gen.hilo_max_lo)
-- starts above them, for ranges as for hilo_next.
CREATE TABLE fresh (id bigint PRIMARY KEY);
INSERT INTO fresh VALUES (1500);
SET id_gen.hilo_max_lo = 100;
ALTER TABLE fresh ALTER COLUMN id SET DEFAULT hilo_next('fresh');
RESET id_gen.hilo_max_lo;
SELECT * FROM hilo_reserve('fresh', 150);
INSERT INTO fresh DEFAULT VALUES RETURNING id;

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

-- The adaptive size (n NULL): the client is the session, per table.  The
-- first range holds 32 ids (here 4 blocks of 10, the first from 1: 39),
-- the next one, asked for at once, 16 times as many (512: 52 blocks).
CREATE TABLE adapt (id bigint PRIMARY KEY DEFAULT hilo_next('adapt'));
SELECT hilo_set_max_lo('adapt', 10);
SELECT last_id - first_id + 1 AS ids FROM hilo_reserve('adapt');
SELECT last_id - first_id + 1 AS ids FROM hilo_reserve('adapt');
-- Another session is another client: it starts at 32 again.
\c
SELECT last_id - first_id + 1 AS ids FROM hilo_reserve('adapt');

-- hilo_return() is kept for the applications that call it: it takes
-- nothing back and returns false.  Giving ids back would move the key's
-- sequence backwards, which a sequence never does (a standby, a crash or a
-- restore could then see them handed out twice).
CREATE TABLE ret (id bigint PRIMARY KEY DEFAULT hilo_next('ret'));
SELECT hilo_set_max_lo('ret', 10);
SELECT * FROM hilo_reserve('ret', 30);
SELECT hilo_return('ret', 16, 39);
SELECT * FROM hilo_reserve('ret', 10);        -- above the first range

-- A bound key (the application's pooled_lo sequence, INCREMENT 10): a
-- range is a run of the application's values; its next nextval() is above.
CREATE TABLE bound (id bigint PRIMARY KEY DEFAULT hilo_next('bound'));
CREATE SEQUENCE bound_seq INCREMENT 10;
SELECT hilo_bind('bound', 'bound_seq', 'pooled_lo');
SELECT * FROM hilo_reserve('bound', 25);
SELECT nextval('bound_seq') AS application_block;
SELECT * FROM hilo_reserve('bound', 5);
SELECT nextval('bound_seq') AS application_block;
-- A bound classic key whose sequence skips values gives one block at a time.
CREATE TABLE gappy (id bigint PRIMARY KEY DEFAULT hilo_next('gappy'));
CREATE SEQUENCE gappy_seq INCREMENT 2;
SELECT hilo_bind('gappy', 'gappy_seq', 'classic', 10);
SELECT * FROM hilo_reserve('gappy', 10);
SELECT * FROM hilo_reserve('gappy', 11); \echo :LAST_ERROR_SQLSTATE

-- Readable ids: '<table>/<n>-<node tag>'; the table schema-qualified unless
-- in public, quoted where SQL needs it; the tag from id_gen.node_tag
-- (superuser, or postgresql.conf).
SELECT hilo_next_text('app') ~ '^app/[0-9]+-A$' AS default_tag;
SET id_gen.node_tag = 'eu_1';
CREATE SCHEMA "Sales Dept";
CREATE TABLE "Sales Dept"."Order/Items" (id text PRIMARY KEY DEFAULT hilo_next_text('"Sales Dept"."Order/Items"'));
SELECT hilo_set_max_lo('"Sales Dept"."Order/Items"', 10);
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

-- Bad input.
SELECT * FROM hilo_reserve(NULL); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve('app', 0); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve('app', -5); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve('no_such_table'); \echo :LAST_ERROR_SQLSTATE
CREATE VIEW app_v AS SELECT * FROM app;
SELECT * FROM hilo_reserve('app_v'); \echo :LAST_ERROR_SQLSTATE
CREATE TEMP TABLE app_temp (id bigint);
SELECT * FROM hilo_reserve('app_temp'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_return(NULL, 1, 2); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_return('app', NULL, 2); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_return('app', 1, NULL); \echo :LAST_ERROR_SQLSTATE
SELECT first_id AS r_first, last_id AS r_last FROM hilo_reserve('ret', 10) \gset
SELECT hilo_next_text(NULL); \echo :LAST_ERROR_SQLSTATE
-- A read-only transaction draws no range and returns none.
BEGIN READ ONLY;
SELECT * FROM hilo_reserve('app', 10); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN READ ONLY;
SELECT hilo_return('ret', :r_first, :r_last); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SELECT hilo_return('ret', :r_first, :r_last);

-- Privileges: INSERT on the table, as for hilo_next, checked at every call
-- (a REVOKE in the middle of a session counts at once); a table owned by
-- another role is refused before anything is drawn.
CREATE ROLE regress_reserve_app;
CREATE ROLE regress_reserve_other;
GRANT CREATE ON SCHEMA public TO regress_reserve_other;
GRANT INSERT ON app TO regress_reserve_app;
SET ROLE regress_reserve_app;
SELECT last_id - first_id + 1 AS ids FROM hilo_reserve('app', 10);
RESET ROLE;
REVOKE INSERT ON app FROM regress_reserve_app;
SET ROLE regress_reserve_app;
SELECT * FROM hilo_reserve('app', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next_text('app'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SET ROLE regress_reserve_other;
CREATE TABLE others (id bigint PRIMARY KEY DEFAULT hilo_next('others'));
RESET ROLE;
GRANT INSERT ON app TO regress_reserve_app;
SET ROLE regress_reserve_app;
SELECT * FROM hilo_reserve('others', 10); \echo :LAST_ERROR_SQLSTATE
SELECT first_id AS r_first, last_id AS r_last FROM hilo_reserve('app', 10) \gset
RESET ROLE;
-- The range's session lost its privilege: it cannot return it either.
REVOKE INSERT ON app FROM regress_reserve_app;
SET ROLE regress_reserve_app;
SELECT hilo_return('app', :r_first, :r_last); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT last_hi AS nothing_drawn_from_others FROM id_gen.hilo_keys WHERE table_name = 'others'::regclass;
DROP TABLE others;
REVOKE CREATE ON SCHEMA public FROM regress_reserve_other;
DROP OWNED BY regress_reserve_app, regress_reserve_other;
DROP ROLE regress_reserve_app, regress_reserve_other;

-- No id was handed out twice: the rows, the ranges and the text ids above.
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM app;

-- Hibernate 3.x's pooled optimizer: ids v-k .. v-1 for the sequence's value
-- v (pooled, as in later versions: v-k+1 .. v).  A key bound with
-- pooled_hibernate3 beside such an application: its blocks and the
-- application's never share an id, not even at the block edges.
CREATE TABLE h3 (id bigint PRIMARY KEY DEFAULT hilo_next('h3'));
CREATE SEQUENCE h3_seq INCREMENT 10;
SELECT hilo_bind('h3', 'h3_seq', 'pooled_hibernate3');
SELECT max_lo, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'h3'::regclass;
INSERT INTO h3 SELECT FROM generate_series(1, 12) RETURNING id;   -- v 1: none; v 11: 1 .. 10; v 21
SELECT v - 10 AS app_first, v - 1 AS app_last FROM nextval('h3_seq') v;   -- the application's block
INSERT INTO h3 SELECT FROM generate_series(1, 10) RETURNING id;
SELECT * FROM hilo_reserve('h3', 15);
SELECT hilo_bind('h3', 'h3_seq', 'hibernate3'); \echo :LAST_ERROR_SQLSTATE
