-- Hi/Lo keys and the ids already in their tables: a new key starts above
-- the rows of its column, read under the DDL's lock that keeps writers
-- out, and the owner's hilo_set_floor() moves a key above its data or a
-- given id after a load.  No draw reads the table.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE:
-- the output shows the error as a client sees it, then its SQLSTATE.

-- A key made for a table that already has rows starts above them: a table
-- loaded first (a partial restore, a bulk load, rows copied in by logical
-- replication), keyed afterwards.
CREATE TABLE preloaded (id bigint PRIMARY KEY, v text);
INSERT INTO preloaded VALUES (1, 'a'), (2500, 'b'), (7, 'c');
ALTER TABLE preloaded ALTER COLUMN id SET DEFAULT hilo_next('preloaded');
INSERT INTO preloaded (v) VALUES ('first default') RETURNING id;
-- Without an index on the column the table is read in full, once.
CREATE TABLE preloaded_noidx (id bigint);
INSERT INTO preloaded_noidx SELECT generate_series(1, 1500);
ALTER TABLE preloaded_noidx ALTER COLUMN id SET DEFAULT hilo_next('preloaded_noidx');
INSERT INTO preloaded_noidx DEFAULT VALUES RETURNING id;
-- A partitioned table: the column in every partition (the parent's ALTER
-- reaches them).
CREATE TABLE preloaded_parted (id bigint, k int, PRIMARY KEY (id, k)) PARTITION BY LIST (k);
CREATE TABLE preloaded_parted_1 PARTITION OF preloaded_parted FOR VALUES IN (1);
CREATE TABLE preloaded_parted_2 PARTITION OF preloaded_parted FOR VALUES IN (2);
INSERT INTO preloaded_parted VALUES (4321, 2), (10, 1);
ALTER TABLE preloaded_parted ALTER COLUMN id SET DEFAULT hilo_next('preloaded_parted');
INSERT INTO preloaded_parted (k) VALUES (1) RETURNING id;
SELECT pg_get_expr(adbin, adrelid) = (SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef
                                       WHERE adrelid = 'preloaded_parted'::regclass) AS partition_has_the_key
  FROM pg_attrdef WHERE adrelid = 'preloaded_parted_2'::regclass;
-- Inheritance: the children's rows count (the parent is read without ONLY).
CREATE TABLE inh_parent (id bigint PRIMARY KEY);
CREATE TABLE inh_child () INHERITS (inh_parent);
INSERT INTO inh_child VALUES (3333);
ALTER TABLE inh_parent ALTER COLUMN id SET DEFAULT hilo_next('inh_parent');
INSERT INTO inh_parent DEFAULT VALUES RETURNING id;
-- A smaller integer column (the DEFAULT casts hilo_next()).
CREATE TABLE preloaded_int (id integer PRIMARY KEY);
INSERT INTO preloaded_int VALUES (999), (1000);
ALTER TABLE preloaded_int ALTER COLUMN id SET DEFAULT hilo_next('preloaded_int');
INSERT INTO preloaded_int DEFAULT VALUES RETURNING id;
-- Another table whose default names this key is not read (only the key's
-- own table is): after loading it, the owner moves the key.
CREATE TABLE shared_a (id bigint PRIMARY KEY DEFAULT hilo_next('shared_a'));
CREATE TABLE shared_b (id bigint PRIMARY KEY DEFAULT hilo_next('shared_a'));
INSERT INTO shared_b VALUES (6006);
SELECT hilo_set_floor('shared_a', 6007);
INSERT INTO shared_b DEFAULT VALUES RETURNING id;

-- No draw reads the table (issue 25): as with a sequence, a load with
-- explicit ids is followed by the owner's hilo_set_floor() (setval after a
-- load).  A draw that read the column would let any role with INSERT steer
-- the key with a row it rolls back, and stall inserts behind maintenance of
-- any partition.
CREATE TABLE drawn (id bigint PRIMARY KEY DEFAULT hilo_next('drawn'), who text);
SELECT hilo_set_max_lo('drawn', 10);
INSERT INTO drawn (who) SELECT 'db' FROM generate_series(1, 5) RETURNING id;
SELECT reserved_to FROM id_gen.hilo_keys WHERE table_name = 'drawn'::regclass;
-- A load above reserved_to, the highest id any backend may hold in a block.
COPY drawn FROM stdin;
100	load
250	load
\.
-- Before hilo_set_floor() the key goes on where it stood.
INSERT INTO drawn (who) SELECT 'db' FROM generate_series(1, 6) RETURNING id;
-- hilo_set_floor() after the load: every block drawn after it lies above
-- the load, in this session (once it has used up the block it holds,
-- 20..29) and in a new one.
SELECT hilo_set_floor('drawn');
INSERT INTO drawn (who) SELECT 'db' FROM generate_series(1, 6) RETURNING id;
\c
INSERT INTO drawn (who) VALUES ('new session') RETURNING id;
-- A block a session holds is its own, as a sequence's cached values are: a
-- load into it (261..269 here) collides at 263 even after hilo_set_floor();
-- load above reserved_to.
INSERT INTO drawn VALUES (263, 'load into block'), (265, 'load into block');
SELECT hilo_set_floor('drawn');
INSERT INTO drawn (who) SELECT 'db' FROM generate_series(1, 2) RETURNING id;
INSERT INTO drawn (who) VALUES ('collides'); \echo :LAST_ERROR_SQLSTATE
SELECT count(*) = count(DISTINCT id) AS unique_ids FROM drawn;

-- hilo_set_floor(tbl, next_id DEFAULT NULL) returns the first id of the
-- next block.  NULL: above the largest id of the key's column(s); an id:
-- at or above it (and still above the data).  It only moves forward.
CREATE TABLE floored (id bigint PRIMARY KEY DEFAULT hilo_next('floored'));
INSERT INTO floored DEFAULT VALUES RETURNING id;
SELECT hilo_set_floor('floored', 5000);
\c
INSERT INTO floored DEFAULT VALUES RETURNING id;
SELECT hilo_set_floor('floored', 10) AS forward_only;
INSERT INTO floored VALUES (123456);
SELECT hilo_set_floor('floored');
SELECT hilo_set_floor('floored', 200000);
-- An id below the data is raised above the data.
CREATE TABLE floored2 (id bigint PRIMARY KEY DEFAULT hilo_next('floored2'));
INSERT INTO floored2 DEFAULT VALUES RETURNING id;
INSERT INTO floored2 VALUES (5555);
SELECT hilo_set_floor('floored2', 100) AS never_below_the_data;
-- A table without a key gets none: keys are made by the table's DDL.
CREATE TABLE floored_new (id bigint PRIMARY KEY);
SELECT hilo_set_floor('floored_new'); \echo :LAST_ERROR_SQLSTATE

-- Keys bound to an application's sequence, every formula: the sequence
-- itself moves, so the application's next blocks are above the data too.
CREATE SEQUENCE fl_classic_seq;
CREATE SEQUENCE fl_legacy_seq;
CREATE SEQUENCE fl_pooled_lo_seq INCREMENT 10;
CREATE SEQUENCE fl_pooled_seq INCREMENT 10;
CREATE TABLE fl_classic (id bigint PRIMARY KEY DEFAULT hilo_next('fl_classic'), who text);
CREATE TABLE fl_legacy (id bigint PRIMARY KEY DEFAULT hilo_next('fl_legacy'), who text);
CREATE TABLE fl_pooled_lo (id bigint PRIMARY KEY DEFAULT hilo_next('fl_pooled_lo'), who text);
CREATE TABLE fl_pooled (id bigint PRIMARY KEY DEFAULT hilo_next('fl_pooled'), who text);
SELECT hilo_bind('fl_classic', 'fl_classic_seq', 'classic', 10);
SELECT hilo_bind('fl_legacy', 'fl_legacy_seq', 'legacy', 9);
SELECT hilo_bind('fl_pooled_lo', 'fl_pooled_lo_seq', 'pooled_lo');
SELECT hilo_bind('fl_pooled', 'fl_pooled_seq', 'pooled');
INSERT INTO fl_classic VALUES (1234, 'load');
INSERT INTO fl_legacy VALUES (1234, 'load');
INSERT INTO fl_pooled_lo VALUES (1234, 'load');
INSERT INTO fl_pooled VALUES (1234, 'load');
SELECT hilo_set_floor('fl_classic') AS classic, hilo_set_floor('fl_legacy') AS legacy,
       hilo_set_floor('fl_pooled_lo') AS pooled_lo, hilo_set_floor('fl_pooled') AS pooled;
-- The application's next blocks start above them too: classic hi v gives
-- ids from v * max_lo, pooled_lo value v ids from v.
SELECT nextval('fl_classic_seq') * 10 AS application_classic;
SELECT nextval('fl_pooled_lo_seq') AS application_pooled_lo;
SELECT hilo_set_floor('fl_classic', 5000) AS classic, hilo_set_floor('fl_legacy', 5000) AS legacy,
       hilo_set_floor('fl_pooled_lo', 5000) AS pooled_lo, hilo_set_floor('fl_pooled', 5000) AS pooled;
INSERT INTO fl_pooled (who) VALUES ('db') RETURNING id;
-- The data floor moves a bound sequence too, so the application's next
-- blocks lie above the load.
INSERT INTO fl_pooled_lo VALUES (9000, 'load');
SELECT hilo_set_floor('fl_pooled_lo') AS pooled_lo;
\c
INSERT INTO fl_pooled_lo (who) VALUES ('db') RETURNING id;
SELECT min(c) AS application_after_floor FROM client_block('fl_pooled_lo_seq', 'pooled_lo', 10) c;

-- Bad input: a clear error, nothing changed.
SELECT hilo_set_floor(NULL); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_floor('floored', 0); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_floor('floored', -7); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_floor('floored', 9223372036854775807); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_floor('err_v'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_floor('no_such_table'); \echo :LAST_ERROR_SQLSTATE
CREATE TEMP TABLE floor_temp (id bigint);
SELECT hilo_set_floor('floor_temp'); \echo :LAST_ERROR_SQLSTATE
SELECT max_lo, last_hi FROM id_gen.hilo_keys WHERE table_name = 'floored'::regclass;
BEGIN READ ONLY;
SELECT hilo_set_floor('floored'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;

-- Who may: the table's owner; an id for a bound key moves the
-- application's sequence, which needs UPDATE on it (NULL, the data floor,
-- needs no more: the ids are in the owner's table).
CREATE ROLE regress_floor_owner;
CREATE ROLE regress_floor_other;
CREATE ROLE regress_floor_seq;
GRANT CREATE ON SCHEMA public TO regress_floor_owner;
SET ROLE regress_floor_owner;
CREATE TABLE fl_owned (id bigint PRIMARY KEY DEFAULT hilo_next('fl_owned'));
INSERT INTO fl_owned DEFAULT VALUES;
GRANT INSERT ON fl_owned TO regress_floor_other;
SELECT hilo_set_floor('fl_owned', 700);
RESET ROLE;
SET ROLE regress_floor_other;
SELECT hilo_set_floor('fl_owned'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- Dropping a bound sequence.  A key bound to another owner's sequence
-- depends on it as DEFAULT nextval() of it would: its owner's DROP
-- SEQUENCE needs CASCADE, which drops the table's default, and the table's
-- owner makes a new key, which starts above the table's rows.
CREATE SCHEMA floor_app1 AUTHORIZATION regress_floor_seq;
SET ROLE regress_floor_seq;
CREATE SEQUENCE floor_app1.s INCREMENT 10;
GRANT USAGE ON SCHEMA floor_app1 TO regress_floor_owner;
GRANT USAGE ON SEQUENCE floor_app1.s TO regress_floor_owner;
RESET ROLE;
SET ROLE regress_floor_owner;
CREATE TABLE dropped_1 (id bigint PRIMARY KEY DEFAULT hilo_next('dropped_1'));
SELECT hilo_bind('dropped_1', 'floor_app1.s', 'pooled_lo');
INSERT INTO dropped_1 SELECT FROM generate_series(1, 25);
-- An id for a key bound with USAGE only is refused, as setval() would be.
SELECT hilo_set_floor('dropped_1', 100000); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SET ROLE regress_floor_seq;
DROP SEQUENCE floor_app1.s; \echo :LAST_ERROR_SQLSTATE
DROP SEQUENCE floor_app1.s CASCADE;
RESET ROLE;
SELECT count(*) AS keys_left FROM id_gen.hilo_keys WHERE table_name = 'dropped_1'::regclass;
SET ROLE regress_floor_owner;
-- (the column still owns the sequence of its first key, unused since the
-- bind: a new key is started only once it is let go)
ALTER TABLE dropped_1 ALTER COLUMN id SET DEFAULT hilo_next('dropped_1'); \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE dropped_1_id_seq OWNED BY NONE;
ALTER TABLE dropped_1 ALTER COLUMN id SET DEFAULT hilo_next('dropped_1');
INSERT INTO dropped_1 SELECT FROM generate_series(1, 25);
RESET ROLE;
SELECT count(*), count(DISTINCT id), min(id) FILTER (WHERE id > 25) AS new_key_from FROM dropped_1;
SELECT table_name, sequence, own_sequence FROM id_gen.hilo_keys WHERE table_name = 'dropped_1'::regclass;

DROP SCHEMA floor_app1;
DROP OWNED BY regress_floor_owner CASCADE;
REVOKE CREATE ON SCHEMA public FROM regress_floor_owner;
DROP ROLE regress_floor_owner, regress_floor_other, regress_floor_seq;
