-- Upgrade paths.  A new install runs id_gen--1.0.sql and then every upgrade
-- script; an installation of the first release walks the same scripts with
-- ALTER EXTENSION UPDATE.  Both must end with exactly the same objects.
SELECT source, target, path FROM pg_extension_update_paths('id_gen')
 WHERE path IS NOT NULL ORDER BY source, target;

-- The extension's members (count and digest of their schema-qualified
-- identities, which do not depend on what search_path shows) and its
-- configuration tables, compared between the two databases below.  From 17
-- on, the types a table, view or type brings with it (its row type, its
-- array type) are members too; they follow their owner, so they are left out
-- and the count is the same on every version.
\set members 'SELECT count(*) AS members, md5(string_agg(obj, E\'\\n\' ORDER BY obj)) AS members_md5 FROM (SELECT (SELECT type || \' \' || identity FROM pg_identify_object(classid, objid, objsubid)) AS obj FROM pg_depend WHERE refclassid = \'pg_extension\'::regclass AND deptype = \'e\' AND refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\') AND NOT (classid = \'pg_type\'::regclass AND objid IN (SELECT typarray FROM pg_type UNION ALL SELECT reltype FROM pg_class WHERE relkind <> \'c\'))) m; SELECT extconfig::regclass[] FROM pg_extension WHERE extname = \'id_gen\';'

-- Column types of the configuration tables and the definitions of the
-- member functions and views: an upgrade script that changes a column or
-- a function must leave them as a fresh install has them.
\set definitions 'SELECT string_agg(format(\'%s.%s %s\', c.relname, a.attname, format_type(a.atttypid, a.atttypmod)), \', \' ORDER BY c.relname, a.attnum) AS config_columns FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relkind = \'r\' AND a.attnum > 0 AND NOT a.attisdropped AND c.oid = ANY ((SELECT extconfig FROM pg_extension WHERE extname = \'id_gen\')::oid[]); SELECT md5(string_agg(def, E\'\\n\' ORDER BY def)) AS definitions_md5 FROM (SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_depend d ON d.classid = \'pg_proc\'::regclass AND d.objid = p.oid WHERE d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\') AND p.prokind <> \'a\' UNION ALL SELECT pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_depend d ON d.classid = \'pg_class\'::regclass AND d.objid = c.oid WHERE c.relkind = \'v\' AND d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\')) x;'

CREATE DATABASE id_gen_upgraded;
CREATE DATABASE id_gen_fresh;

\c id_gen_upgraded
CREATE EXTENSION id_gen VERSION '1.0';
CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'));
INSERT INTO t DEFAULT VALUES;
-- A key bound to a sequence whose name needs quotes.
CREATE SCHEMA "App Schema";
CREATE SEQUENCE "App Schema"."Order Seq" INCREMENT 10;
CREATE TABLE bound (id bigint PRIMARY KEY DEFAULT hilo_next('bound'));
SELECT hilo_bind('bound', '"App Schema"."Order Seq"', 'pooled_lo');
INSERT INTO bound DEFAULT VALUES;
ALTER EXTENSION id_gen UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
SELECT snowflake_next() > 0 AS snowflake_works;
ALTER EXTENSION id_gen UPDATE TO '1.2';
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
SELECT timeuuid_next() < timeuuid_next() AS timeuuid_works;
ALTER EXTENSION id_gen UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
-- 1.3 names a key's sequence in text: the update converted the rows.
SELECT relid, pg_typeof(seq) AS seq_type, seq, to_regclass(seq) IS NOT NULL AS resolves
  FROM id_gen.hilo_key ORDER BY relid::text;
-- The Hi/Lo keys created under 1.0 carry on after the updates.
INSERT INTO t DEFAULT VALUES;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM t;
INSERT INTO bound DEFAULT VALUES;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids, max(id) AS max_id FROM bound;
-- Members and configuration tables of the updated extension.
:members
:definitions

\c id_gen_fresh
CREATE EXTENSION id_gen;
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
-- The same members (same count and digest) and configuration tables.
:members
:definitions

\c postgres
DROP DATABASE id_gen_upgraded;
DROP DATABASE id_gen_fresh;
