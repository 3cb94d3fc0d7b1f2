-- Upgrade paths.  A new install runs id_gen--1.0.sql and then every upgrade
-- script; an installation of the first release walks the same scripts with
-- ALTER EXTENSION UPDATE.  Both must end with exactly the same objects.
SELECT source, target, path FROM pg_extension_update_paths('id_gen')
 WHERE path IS NOT NULL ORDER BY source, target;

-- The extension's members (count and digest of their descriptions) and its
-- configuration tables, compared between the two databases below.
\set members 'SELECT count(*) AS members, md5(string_agg(obj, E\'\\n\' ORDER BY obj)) AS members_md5 FROM (SELECT pg_describe_object(classid, objid, objsubid) AS obj FROM pg_depend WHERE refclassid = \'pg_extension\'::regclass AND deptype = \'e\' AND refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\')) m; SELECT extconfig::regclass[] FROM pg_extension WHERE extname = \'id_gen\';'

CREATE DATABASE id_gen_upgraded;
CREATE DATABASE id_gen_fresh;

\c id_gen_upgraded
CREATE EXTENSION id_gen VERSION '1.0';
CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'));
INSERT INTO t DEFAULT VALUES;
ALTER EXTENSION id_gen UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
SELECT snowflake_next() > 0 AS snowflake_works;
ALTER EXTENSION id_gen UPDATE TO '1.2';
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
SELECT timeuuid_next() < timeuuid_next() AS timeuuid_works;
ALTER EXTENSION id_gen UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
-- The Hi/Lo key created under 1.0 carries on after the updates.
INSERT INTO t DEFAULT VALUES;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM t;
-- Members and configuration tables of the updated extension.
:members

\c id_gen_fresh
CREATE EXTENSION id_gen;
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
-- The same members (same count and digest) and configuration tables.
:members

\c postgres
DROP DATABASE id_gen_upgraded;
DROP DATABASE id_gen_fresh;
