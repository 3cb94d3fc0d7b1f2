-- Roles: what another role can do to a Hi/Lo key it does not own, and what
-- a role's own code can do when id_gen reads its table (the security model
-- in src/pg/hilo/hilo.hpp).  regress_victim owns a.orders; regress_hostile
-- can only create objects in its own schema m (and look up names in a).
CREATE ROLE regress_victim;
CREATE ROLE regress_hostile;
CREATE SCHEMA a AUTHORIZATION regress_victim;
CREATE SCHEMA m AUTHORIZATION regress_hostile;
GRANT USAGE ON SCHEMA a TO regress_hostile;
SET ROLE regress_victim;
CREATE TABLE a.orders (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'), note text);
SELECT hilo_create_key('a.orders', max_lo => 10);
INSERT INTO a.orders (note) VALUES ('first') RETURNING id;
RESET ROLE;

-- The hostile role's code, which records who ran it and tries to become
-- superuser.
SET ROLE regress_hostile;
CREATE TABLE m.seen (what text, who name);
GRANT INSERT ON m.seen TO PUBLIC;
CREATE FUNCTION m.grab(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	BEGIN
		ALTER ROLE regress_hostile SUPERUSER;
	EXCEPTION WHEN others THEN NULL;
	END;
	INSERT INTO m.seen VALUES (what, current_user);
	RETURN true;
END $$;
-- Operators and functions named like the ones a catalog query would use,
-- in a schema on the caller's search_path (finding 1: an = (oid, regclass)
-- operator ran as whoever issued any CREATE or ALTER TABLE).
CREATE FUNCTION m.oideq(oid, regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab('operator');
	RETURN $1 OPERATOR(pg_catalog.=) $2::oid;
END $$;
CREATE OPERATOR m.= (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = m.oideq);
CREATE FUNCTION m.int8eq(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab('operator');
	RETURN $1 OPERATOR(pg_catalog.=) $2;
END $$;
CREATE OPERATOR m.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = m.int8eq);
CREATE FUNCTION m.max(bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab('max');
	RETURN 1;
END $$;
-- A table of its own whose rows a forced row security policy hides from
-- its owner (finding 11): the policy calls its code.
CREATE TABLE m.t (id bigint PRIMARY KEY);
INSERT INTO m.t VALUES (41);
ALTER TABLE m.t ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY p ON m.t USING (m.grab('policy') AND id < 0);
RESET ROLE;
TRUNCATE m.seen;

-- A superuser's DDL and key making with that search_path run none of it:
-- no event trigger runs SQL on CREATE or ALTER TABLE, and hilo_create_key()
-- reads the rows from the heap (no policy hides them) and runs one CREATE
-- SEQUENCE as the table's owner with search_path pinned.
SET search_path = m, public, pg_temp;
CREATE TABLE public.plain (id bigint PRIMARY KEY, n int);
ALTER TABLE public.plain ADD COLUMN note text;
ALTER TABLE m.t ALTER COLUMN id SET DEFAULT hilo_next('m.t');
SELECT hilo_create_key('m.t', max_lo => 10);
SELECT start_value, sequenceowner FROM pg_sequences WHERE schemaname = 'm' AND sequencename = 't_id_seq';
SELECT count(*) > 0 AS keys_listed FROM id_gen.hilo_keys;
SELECT count(*) > 0 AS headroom_listed FROM id_gen.headroom WHERE generator = 'hilo';
RESET search_path;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_hostile';
SELECT what, who FROM m.seen GROUP BY what, who ORDER BY what;
DROP TABLE public.plain;

-- Another role's table whose DEFAULT names the victim's key or its
-- sequence: a draw through it needs INSERT on a.orders (or what nextval()
-- needs on the sequence), checked before anything of the victim's is locked
-- (finding 3: it blocked the victim's inserts and read the key's position).
SET ROLE regress_hostile;
CREATE TABLE m.evil (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'));
CREATE TABLE m.evil_orm (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders_id_seq', 'pooled'));
BEGIN;
INSERT INTO m.evil DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN;
INSERT INTO m.evil_orm DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
BEGIN;
SAVEPOINT s;
INSERT INTO m.evil DEFAULT VALUES;
ROLLBACK TO SAVEPOINT s;
SELECT count(*) AS victim_locks FROM pg_locks
 WHERE pid = pg_backend_pid() AND relation IN ('a.orders'::regclass, 'a.orders_id_seq'::regclass);
ROLLBACK;
RESET ROLE;

-- The role matrix: the hostile role against the victim's key, through every
-- Hi/Lo function and the indirect paths.  Each attempt fails with 42501,
-- and afterwards the sequence and the victim's ids are as they were.
CREATE TEMP TABLE seq_before AS SELECT last_value, increment_by FROM pg_sequences WHERE schemaname = 'a';
GRANT SELECT ON seq_before TO regress_hostile;
SET ROLE regress_hostile;
SELECT hilo_next('a.orders'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next_text('a.orders'); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve('a.orders', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('a.orders', 'note'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('a.orders_id_seq', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('a.orders_id_seq', 'legacy', 5); \echo :LAST_ERROR_SQLSTATE
SELECT nextval('a.orders_id_seq'); \echo :LAST_ERROR_SQLSTATE
SELECT setval('a.orders_id_seq', 1); \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE a.orders_id_seq RESTART; \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE a.orders_id_seq OWNED BY m.evil.id; \echo :LAST_ERROR_SQLSTATE
-- Indirect: a trigger and a deferred constraint trigger of its own that
-- call hilo_next('a.orders') run as itself.
CREATE TABLE m.own (id bigint PRIMARY KEY DEFAULT hilo_next('m.own'));
SELECT hilo_create_key('m.own');
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
INSERT INTO m.own DEFAULT VALUES RETURNING id;
RESET ROLE;
SELECT (SELECT array_agg(row(last_value, increment_by)) FROM pg_sequences WHERE schemaname = 'a')
       IS NOT DISTINCT FROM (SELECT array_agg(row(last_value, increment_by)) FROM seq_before) AS sequence_unchanged;
SELECT rolsuper, rolcreaterole, rolbypassrls FROM pg_roles WHERE rolname = 'regress_hostile';
SET ROLE regress_victim;
INSERT INTO a.orders (note) VALUES ('after') RETURNING id;
RESET ROLE;
DROP TABLE seq_before;

-- A role with INSERT (and nothing on the sequence) draws, as an identity
-- column's inserter does; through a view, the view's reader needs INSERT on
-- the table as for nextval() it needs USAGE on a serial's sequence.
CREATE ROLE regress_writer;
GRANT USAGE ON SCHEMA a TO regress_writer;
GRANT INSERT ON a.orders TO regress_writer;
SET ROLE regress_writer;
INSERT INTO a.orders (note) VALUES ('writer');
RESET ROLE;
-- A REVOKE in the middle of a session counts at the next call.
\c -
SET ROLE regress_writer;
SELECT hilo_next('a.orders') > 0 AS drawn;
RESET ROLE;
REVOKE INSERT ON a.orders FROM regress_writer;
SET ROLE regress_writer;
SELECT hilo_next('a.orders'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- An ORM form needs what nextval() needs on its sequence (USAGE or UPDATE).
SET ROLE regress_victim;
CREATE SEQUENCE a.app_seq INCREMENT 10;
GRANT USAGE ON SEQUENCE a.app_seq TO regress_writer;
RESET ROLE;
SET ROLE regress_writer;
SELECT hilo_next('a.app_seq', 'pooled_lo') AS orm_drawn;
RESET ROLE;

-- Other roles cannot veto the owner's DDL: a view on the key's sequence
-- goes with DROP TABLE ... CASCADE.
CREATE SCHEMA v AUTHORIZATION regress_writer;
SET ROLE regress_writer;
CREATE VIEW v.peek AS SELECT last_value FROM a.orders_id_seq;
RESET ROLE;
SET ROLE regress_victim;
ALTER SEQUENCE a.orders_id_seq INCREMENT BY 100;
DROP TABLE a.orders CASCADE;
RESET ROLE;
SELECT count(*) AS views_left FROM pg_views WHERE schemaname = 'v';
SELECT to_regclass('a.orders_id_seq') AS sequence_left;

DROP SCHEMA a, m, v CASCADE;
DROP ROLE regress_victim, regress_hostile, regress_writer;
