-- Roles: what another role can do to a Hi/Lo key it does not own, and what
-- a role's own code can do when id_gen's SQL reads its table (the security
-- model in src/pg/hilo/hilo.hpp).  regress_victim owns a.orders;
-- regress_hostile can only create objects in its own schema m (and look up
-- names in a).
CREATE ROLE regress_victim;
CREATE ROLE regress_hostile;
CREATE SCHEMA a AUTHORIZATION regress_victim;
CREATE SCHEMA m AUTHORIZATION regress_hostile;
GRANT USAGE ON SCHEMA a TO regress_hostile;
SET ROLE regress_victim;
CREATE TABLE a.orders (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'), note text);
SELECT hilo_set_max_lo('a.orders', 10);
INSERT INTO a.orders (note) VALUES ('first') RETURNING id;
RESET ROLE;

-- id_gen's SQL on a table (reading its ids when a key is made or moved)
-- runs as the table's owner in a security-restricted operation, whoever
-- runs the DDL: a superuser's ALTER TABLE on the hostile role's table runs
-- its row security policy as that role, not as the superuser.
SET ROLE regress_hostile;
CREATE TABLE m.seen (what text, who name);
CREATE FUNCTION m.grab(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	BEGIN
		ALTER ROLE regress_hostile SUPERUSER;
	EXCEPTION WHEN others THEN NULL;
	END;
	INSERT INTO m.seen VALUES (what, current_user);
	RETURN true;
END $$;
CREATE TABLE m.t (id bigint PRIMARY KEY);
INSERT INTO m.t VALUES (41);
ALTER TABLE m.t ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY p ON m.t USING (m.grab('policy'));
RESET ROLE;
ALTER TABLE m.t ALTER COLUMN id SET DEFAULT hilo_next('m.t');
SELECT hilo_set_floor('m.t', 100) AS moved_by_superuser;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_hostile';
SELECT what, who FROM m.seen GROUP BY what, who ORDER BY what;
SELECT pg_get_userbyid(relowner) AS key_sequence_owner FROM pg_class WHERE oid = 'm.t_id_seq'::regclass;

-- Another role's table whose DEFAULT names the victim's key: its rows do not
-- move the key (no draw reads any table).  Creating it needs no privilege
-- on a.orders; drawing through it does.
SET ROLE regress_hostile;
CREATE TABLE m.evil (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'));
INSERT INTO m.evil DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
INSERT INTO m.evil VALUES (9223372036854775700);
RESET ROLE;
\c -
SET ROLE regress_victim;
INSERT INTO a.orders (note) VALUES ('after m.evil') RETURNING id;
SELECT hilo_set_max_lo('a.orders', 20);
INSERT INTO a.orders (note) VALUES ('after m.evil') RETURNING id < 100 AS not_moved;
RESET ROLE;
-- Only the key's own table is read, when its owner moves the key: ids
-- loaded into another table of the owner's that shares the key are passed
-- to hilo_set_floor() (as to setval() after a load).
SET ROLE regress_victim;
CREATE TABLE a.archive (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'));
INSERT INTO a.archive VALUES (5000);
SELECT hilo_set_floor('a.orders', 5001) > 5000 AS above_archive;
RESET ROLE;
\c -
SET ROLE regress_victim;
INSERT INTO a.orders (note) VALUES ('after a.archive') RETURNING id > 5000 AS above_archive;
RESET ROLE;

-- The role matrix: the hostile role, which owns nothing of a.orders' and may
-- only create objects in its schema m, against the victim's key, through
-- every Hi/Lo function and the indirect paths.  Each attempt fails with
-- 42501, and afterwards the key, its sequence and the victim's ids are as
-- they were.
SET ROLE regress_victim;
CREATE TABLE a.hi (next_hi integer);
INSERT INTO a.hi VALUES (7);
CREATE SEQUENCE a.app_seq;
RESET ROLE;
CREATE TEMP TABLE key_before AS
	SELECT sequence::text AS seq, strategy, max_lo, own_sequence, adaptive, hi_table, column_name
	  FROM id_gen.hilo_keys WHERE table_name = 'a.orders'::regclass;
SELECT seq AS victim_seq FROM key_before \gset
CREATE TEMP TABLE seq_before AS SELECT last_value FROM a.orders_id_seq;
GRANT SELECT ON key_before, seq_before TO regress_hostile;

SET ROLE regress_hostile;
-- Every function, directly.
SELECT hilo_next('a.orders'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next_text('a.orders'); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve('a.orders', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_return('a.orders', 1, 100); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_max_lo('a.orders', 5); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_floor('a.orders', 9223372036854775000); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_adaptive('a.orders'); \echo :LAST_ERROR_SQLSTATE
CREATE SEQUENCE m.s;
SELECT hilo_bind('a.orders', 'm.s', 'pooled_lo', 10); \echo :LAST_ERROR_SQLSTATE
CREATE TABLE m.t_hi (next_hi integer);
INSERT INTO m.t_hi VALUES (0);
SELECT hilo_bind_table('a.orders', 'm.t_hi', 'next_hi', 4); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('a.orders', 'note'); \echo :LAST_ERROR_SQLSTATE
SELECT nextval('a.orders_id_seq'); \echo :LAST_ERROR_SQLSTATE
SELECT setval('a.orders_id_seq', 1); \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE a.orders_id_seq RESTART; \echo :LAST_ERROR_SQLSTATE
-- Its own tables bound to the victim's sequences and hi table, or naming
-- the victim's key in their default.
CREATE TABLE m.own (id bigint PRIMARY KEY DEFAULT hilo_next('m.own'));
SELECT hilo_bind('m.own', 'a.orders_id_seq', 'pooled_lo', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('m.own', 'a.app_seq', 'pooled_lo', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('m.own', 'a.hi', 'next_hi', 4); \echo :LAST_ERROR_SQLSTATE
CREATE TABLE m.copy (id bigint DEFAULT hilo_next('a.orders', 'a.orders_id_seq', 'classic', 1, false, NULL));
INSERT INTO m.copy DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
CREATE TABLE m.parked (next_hi bigint);
CREATE TRIGGER park BEFORE INSERT ON m.parked FOR EACH ROW
	EXECUTE FUNCTION hilo_hi_row('next_hi', 'a.orders_id_seq');
INSERT INTO m.parked VALUES (0); \echo :LAST_ERROR_SQLSTATE
-- Indirect: a trigger and a deferred constraint trigger of its own that
-- call hilo_next('a.orders') run as itself.
CREATE FUNCTION m.steal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM hilo_next('a.orders');
	RETURN NULL;
END $$;
CREATE TRIGGER steal AFTER INSERT ON m.own FOR EACH ROW EXECUTE FUNCTION m.steal();
INSERT INTO m.own DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
DROP TRIGGER steal ON m.own;
CREATE CONSTRAINT TRIGGER steal_late AFTER INSERT ON m.own DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION m.steal();
INSERT INTO m.own DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
DROP TRIGGER steal_late ON m.own;
-- Search path tricks: an = operator and functions named like the ones
-- id_gen's SQL calls are not what it uses (it runs with search_path
-- pg_catalog, pg_temp and qualified names).
CREATE FUNCTION m.int8eq(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab('operator');
	RETURN $1 OPERATOR(pg_catalog.=) $2;
END $$;
CREATE OPERATOR m.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = m.int8eq);
CREATE FUNCTION m.nextval(regclass) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab('nextval');
	RETURN 1;
END $$;
CREATE FUNCTION m.setval(regclass, bigint, boolean) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab('setval');
	RETURN 1;
END $$;
CREATE FUNCTION m.max(bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab('max');
	RETURN 1;
END $$;
SET search_path = m, pg_temp, public;
TRUNCATE m.seen;
SELECT hilo_set_max_lo('m.own', 5);
SELECT hilo_set_floor('m.own') > 0 AS floor_set;
SELECT hilo_next('m.own') > 0 AS own_key_works;
RESET search_path;
SELECT count(*) AS ran_hostile_code FROM m.seen;
RESET ROLE;

-- Nothing changed: the key, its sequence, the victim's next ids, and the
-- hostile role's privileges.
SELECT (SELECT row(sequence::text, strategy, max_lo, own_sequence, adaptive, hi_table, column_name)
          FROM id_gen.hilo_keys WHERE table_name = 'a.orders'::regclass)
       IS NOT DISTINCT FROM (SELECT row(seq, strategy, max_lo, own_sequence, adaptive, hi_table, column_name)
                               FROM key_before) AS key_unchanged;
SELECT (SELECT last_value FROM a.orders_id_seq)
       IS NOT DISTINCT FROM (SELECT last_value FROM seq_before) AS sequence_unchanged;
SELECT next_hi FROM a.hi;                                                        -- 7
SELECT last_value FROM a.app_seq;                                                -- 1
SELECT rolsuper, rolcreaterole, rolbypassrls FROM pg_roles WHERE rolname = 'regress_hostile';
SET ROLE regress_victim;
INSERT INTO a.orders (note) VALUES ('last') RETURNING id < 10000 AS not_moved;
RESET ROLE;

DROP TABLE key_before, seq_before;

-- Moving a key is its owner's act (issue 25, finding 4): no draw reads the
-- table.  A role with INSERT alone writes an explicit id near the end of
-- bigint, draws a block in the same transaction and rolls back; before, the
-- draw saw the row and moved the key above it for good.
CREATE ROLE regress_writer;
GRANT USAGE ON SCHEMA a TO regress_writer;
GRANT INSERT ON a.orders TO regress_writer;
\c -
SET ROLE regress_writer;
BEGIN;
INSERT INTO a.orders VALUES (9223372036854775700, 'rolled back');
INSERT INTO a.orders (note) VALUES ('draws a block');
ROLLBACK;
RESET ROLE;
\c -
SET ROLE regress_victim;
INSERT INTO a.orders (note) VALUES ('after the rollback') RETURNING id < 10000 AS not_moved;
RESET ROLE;

-- An ownership transfer hands the victim nothing that moves its key
-- (finding 5): m.evil, whose DEFAULT names a.orders' key and whose row lies
-- near the end of bigint, becomes the victim's by REASSIGN OWNED.
REASSIGN OWNED BY regress_hostile TO regress_victim;
SELECT tableowner FROM pg_tables WHERE schemaname = 'm' AND tablename = 'evil';
\c -
SET ROLE regress_victim;
INSERT INTO a.orders (note) VALUES ('after REASSIGN OWNED') RETURNING id < 10000 AS not_moved;
RESET ROLE;

-- Other roles cannot veto the owner's DDL (finding 7).  A key's sequence
-- lives in its table's schema, granted to nobody; a role that may look up
-- names there can still make a view on it (a view needs no privilege on
-- what it reads), as on a serial's sequence: the owner's hilo_set_max_lo,
-- which moves the sequence and keeps it, works, and DROP TABLE ... CASCADE
-- takes the view along, as core's DROP does for any dependent object.
CREATE SCHEMA v AUTHORIZATION regress_writer;
SET ROLE regress_writer;
CREATE VIEW v.peek AS SELECT last_value FROM a.orders_id_seq;
SELECT * FROM v.peek; \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SET ROLE regress_victim;
SELECT hilo_set_max_lo('a.orders', 1000);
SELECT hilo_set_max_lo('a.orders', 5);
INSERT INTO a.orders (note) VALUES ('after the changes') RETURNING id < 100000 AS not_moved;
DROP TABLE a.orders CASCADE;
RESET ROLE;
SELECT count(*) AS views_left FROM pg_views WHERE schemaname = 'v';
SELECT to_regclass('a.orders_id_seq') AS sequence_left;

DROP SCHEMA a, m, v CASCADE;
DROP ROLE regress_victim, regress_hostile, regress_writer;
