-- Roles: what another role can do to a Hi/Lo key it does not own, and what
-- a role's own code can do inside id_gen's key worker (the security model in
-- src/pg/hilo/hilo.hpp).  regress_victim owns a.orders; regress_hostile can
-- only create objects in its own schema m (and look up names in a).
CREATE ROLE regress_victim;
CREATE ROLE regress_hostile;
CREATE SCHEMA a AUTHORIZATION regress_victim;
CREATE SCHEMA m AUTHORIZATION regress_hostile;
GRANT USAGE ON SCHEMA a TO regress_hostile;
SET ROLE regress_victim;
CREATE TABLE a.orders (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'), note text);
SELECT hilo_set_max_lo('a.orders', 10);
INSERT INTO a.orders (note) VALUES ('first') RETURNING id;                       -- 1
RESET ROLE;

-- Code of the caller's that runs in the key worker runs as the caller, to the
-- end of the worker's transaction, in a security-restricted operation (issue
-- 16, defect 1).  The hostile role binds its own table to its own hi table,
-- whose row security policy, CHECK constraint, generated column, index
-- expression and DEFERRED constraint trigger (fired at the worker's commit)
-- each try to make it a superuser and record who they ran as.  PostgreSQL
-- refuses deferred triggers in a security-restricted operation (as in
-- REFRESH MATERIALIZED VIEW): that draw fails and advances nothing.
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
-- Declared IMMUTABLE (a lie), as generated columns and indexes require.
CREATE FUNCTION m.grab_imm(what text, v integer) RETURNS integer IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab(what);
	RETURN v;
END $$;
CREATE FUNCTION m.grab_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM m.grab(TG_NAME);
	RETURN NULL;
END $$;
CREATE TABLE m.t_hi (next_hi integer CHECK (m.grab('check')),
                     pad integer DEFAULT m.grab_imm('default', 0),
                     gen integer GENERATED ALWAYS AS (m.grab_imm('generated', next_hi)) STORED);
CREATE INDEX ON m.t_hi (m.grab_imm('index', next_hi));
INSERT INTO m.t_hi (next_hi) VALUES (0);
ALTER TABLE m.t_hi ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY p ON m.t_hi USING (m.grab('policy'));
CREATE CONSTRAINT TRIGGER at_commit AFTER UPDATE ON m.t_hi DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION m.grab_trg();
CREATE TABLE m.t (id bigint PRIMARY KEY DEFAULT hilo_next('m.t'));
SELECT hilo_bind_table('m.t', 'm.t_hi', 'next_hi', 4);
TRUNCATE m.seen;
INSERT INTO m.t DEFAULT VALUES RETURNING id; \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_hostile';                 -- f
SELECT next_hi FROM m.t_hi;                                                      -- 0
SET ROLE regress_hostile;
DROP TRIGGER at_commit ON m.t_hi;
INSERT INTO m.t DEFAULT VALUES RETURNING id;                                     -- hi 0: 1
RESET ROLE;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_hostile';                 -- f
SELECT what, who FROM m.seen GROUP BY what, who ORDER BY what;                   -- as regress_hostile
SELECT next_hi FROM m.t_hi;                                                      -- 1

-- Another role's table whose DEFAULT names the victim's key is not one of the
-- key's columns (defect 2): its rows do not move the key.  Creating it needs
-- no privilege on a.orders; drawing through it does.
SET ROLE regress_hostile;
CREATE TABLE m.evil (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'));
INSERT INTO m.evil DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
INSERT INTO m.evil VALUES (9223372036854775700);
RESET ROLE;
\c -
SET ROLE regress_victim;
INSERT INTO a.orders (note) VALUES ('after m.evil') RETURNING id;               -- next block: 10
SELECT hilo_set_max_lo('a.orders', 20);
INSERT INTO a.orders (note) VALUES ('after m.evil') RETURNING id < 100 AS not_moved;
RESET ROLE;
-- A table of the key's owner still counts for the data floor, as do the key
-- table's partitions: read when the owner moves the key after a load
-- (hilo_set_floor), never by a draw.
SET ROLE regress_victim;
CREATE TABLE a.archive (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'));
INSERT INTO a.archive VALUES (5000);
SELECT hilo_set_floor('a.orders') > 5000 AS above_archive;
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
	SELECT k.seq, k.strategy, k.max_lo, k.own_seq, k.adaptive,
	       (SELECT count(*) FROM id_gen.hilo_orm_key o WHERE o.relid = 'a.orders'::regclass) AS bindings
	  FROM id_gen.hilo_key k WHERE k.relid = 'a.orders'::regclass;
SELECT seq AS victim_seq FROM key_before \gset
CREATE TEMP TABLE seq_before AS SELECT last_value FROM pg_sequences
	WHERE format('%I.%I', schemaname, sequencename) = :'victim_seq';
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
SELECT hilo_bind_table('a.orders', 'm.t_hi', 'next_hi', 4); \echo :LAST_ERROR_SQLSTATE
-- Its own tables bound to the victim's sequences and hi table.
CREATE TABLE m.own (id bigint PRIMARY KEY DEFAULT hilo_next('m.own'));
\set VERBOSITY sqlstate
SELECT hilo_bind('m.own', :'victim_seq', 'pooled_lo', 10);                      -- the key's own sequence
\set VERBOSITY default
SELECT hilo_bind('m.own', 'a.app_seq', 'pooled_lo', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind_table('m.own', 'a.hi', 'next_hi', 4); \echo :LAST_ERROR_SQLSTATE
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
-- Search path tricks: an = operator, a function named like ours and a temp
-- table named like the key table are not what id_gen's own SQL uses (it
-- runs with search_path pg_catalog, pg_temp and qualified names).
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
CREATE TEMP TABLE hilo_key (relid regclass, seq text);
SET search_path = m, pg_temp, public;
TRUNCATE m.seen;
SELECT hilo_set_max_lo('m.own', 5);
SELECT hilo_set_floor('m.own') > 0 AS floor_set;
SELECT hilo_next('m.own') > 0 AS own_key_works;
RESET search_path;
SELECT count(*) AS ran_hostile_code FROM m.seen;
RESET ROLE;

-- Nothing changed: the key row, its sequence, the victim's next ids, and
-- the hostile role's privileges.
SELECT (SELECT row(k.seq, k.strategy, k.max_lo, k.own_seq, k.adaptive,
                   (SELECT count(*) FROM id_gen.hilo_orm_key o WHERE o.relid = 'a.orders'::regclass))
          FROM id_gen.hilo_key k WHERE k.relid = 'a.orders'::regclass)
       IS NOT DISTINCT FROM (SELECT row(seq, strategy, max_lo, own_seq, adaptive, bindings) FROM key_before)
       AS key_unchanged;
SELECT (SELECT last_value FROM pg_sequences WHERE format('%I.%I', schemaname, sequencename) = :'victim_seq')
       IS NOT DISTINCT FROM (SELECT last_value FROM seq_before) AS sequence_unchanged;
SELECT next_hi FROM a.hi;                                                        -- 7
SELECT last_value FROM a.app_seq;                                                -- 1
SELECT rolsuper, rolcreaterole, rolbypassrls FROM pg_roles WHERE rolname = 'regress_hostile';
SET ROLE regress_victim;
INSERT INTO a.orders (note) VALUES ('last') RETURNING id < 10000 AS not_moved;
RESET ROLE;

DROP TABLE key_before, seq_before, pg_temp.hilo_key;

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

-- Other roles cannot veto the owner's DDL (finding 7).  Creating a view needs
-- no privilege on what it reads, so any role can make one on a key's
-- sequence; the owner's growing hilo_set_max_lo (which replaces the
-- sequence) and DROP TABLE ... CASCADE still work, and take the view along.
CREATE SCHEMA v AUTHORIZATION regress_writer;
SET ROLE regress_writer;
CREATE VIEW v.peek AS SELECT last_value FROM :victim_seq;
RESET ROLE;
SET ROLE regress_victim;
SELECT hilo_set_max_lo('a.orders', 1000);
INSERT INTO a.orders (note) VALUES ('after growing') RETURNING id < 10000 AS not_moved;
RESET ROLE;
SELECT seq AS victim_seq FROM id_gen.hilo_key WHERE relid = 'a.orders'::regclass \gset
SET ROLE regress_writer;
CREATE VIEW v.peek2 AS SELECT last_value FROM :victim_seq;
RESET ROLE;
SET ROLE regress_victim;
DROP TABLE a.orders CASCADE;
RESET ROLE;
SELECT count(*) AS views_left FROM pg_views WHERE schemaname = 'v';
SELECT count(*) AS keys_left FROM id_gen.hilo_key WHERE seq = :'victim_seq';

DROP SCHEMA a, m, v CASCADE;
DROP ROLE regress_victim, regress_hostile, regress_writer;
