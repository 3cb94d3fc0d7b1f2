-- Upgrade paths.  A new install runs the full script of the current version
-- (id_gen--1.4.sql); an installation of an earlier version walks the upgrade
-- scripts with ALTER EXTENSION UPDATE.  Both must end with exactly the same
-- objects, comments and privileges.
SELECT source, target, path FROM pg_extension_update_paths('id_gen')
 WHERE path IS NOT NULL ORDER BY source, target;

-- The extension's members (count and digest of their schema-qualified
-- identities, which do not depend on what search_path shows) and its
-- configuration tables (as a set: an update appends its new ones after the
-- old ones), compared between the two databases below.  From 17
-- on, the types a table, view or type brings with it (its row type, its
-- array type) are members too; they follow their owner, so they are left out
-- and the count is the same on every version.
\set members 'SELECT count(*) AS members, md5(string_agg(obj, E\'\\n\' ORDER BY obj)) AS members_md5 FROM (SELECT (SELECT type || \' \' || identity FROM pg_identify_object(classid, objid, objsubid)) AS obj FROM pg_depend WHERE refclassid = \'pg_extension\'::regclass AND deptype = \'e\' AND refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\') AND NOT (classid = \'pg_type\'::regclass AND objid IN (SELECT typarray FROM pg_type UNION ALL SELECT reltype FROM pg_class WHERE relkind <> \'c\'))) m'
\set config 'SELECT array(SELECT c::regclass::text FROM pg_extension, unnest(extconfig) AS c WHERE extname = \'id_gen\' ORDER BY 1)::text AS config'

-- Column types of the configuration tables and the definitions of the
-- member functions and views: an upgrade script that changes a column or
-- a function must leave them as a fresh install has them.
\set columns 'SELECT coalesce(string_agg(format(\'%s.%s %s\', c.relname, a.attname, format_type(a.atttypid, a.atttypmod)), \', \' ORDER BY c.relname, a.attnum), \'-\') AS config_columns FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relkind = \'r\' AND a.attnum > 0 AND NOT a.attisdropped AND c.oid = ANY ((SELECT extconfig FROM pg_extension WHERE extname = \'id_gen\')::oid[])'
\set definitions 'SELECT md5(string_agg(def, E\'\\n\' ORDER BY def)) AS definitions_md5 FROM (SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_depend d ON d.classid = \'pg_proc\'::regclass AND d.objid = p.oid WHERE d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\') AND p.prokind <> \'a\' UNION ALL SELECT pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_depend d ON d.classid = \'pg_class\'::regclass AND d.objid = c.oid WHERE c.relkind = \'v\' AND d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\')) x'

CREATE DATABASE id_gen_upgraded;
CREATE DATABASE id_gen_fresh;

-- Comments and privileges of the members: an upgrade script that forgets a
-- COMMENT or a GRANT leaves users with a different extension than a fresh
-- install gives.
\set annotations 'SELECT md5(string_agg(line, E\'\\n\' ORDER BY line)) AS annotations_md5, count(described) AS commented FROM (SELECT pg_describe_object(d.classid, d.objid, d.objsubid) || \': \' || coalesce(ds.description, \'-\') || \' \' || coalesce((SELECT relacl::text FROM pg_class WHERE d.classid = \'pg_class\'::regclass AND oid = d.objid), (SELECT proacl::text FROM pg_proc WHERE d.classid = \'pg_proc\'::regclass AND oid = d.objid), (SELECT nspacl::text FROM pg_namespace WHERE d.classid = \'pg_namespace\'::regclass AND oid = d.objid), (SELECT typacl::text FROM pg_type WHERE d.classid = \'pg_type\'::regclass AND oid = d.objid), \'-\') AS line, ds.description AS described FROM pg_depend d LEFT JOIN pg_description ds ON ds.classoid = d.classid AND ds.objoid = d.objid AND ds.objsubid = d.objsubid WHERE d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\')) x'

-- The operator families' contents (operators and support functions by
-- strategy and types): members of a family are not extension members.
\set families 'SELECT count(*) AS family_entries, md5(string_agg(e, E\'\\n\' ORDER BY e)) AS families_md5 FROM (SELECT format(\'%s %s op %s %s(%s,%s)\', f.opfname, am.amname, o.amopstrategy, o.amopopr::regoperator, o.amoplefttype::regtype, o.amoprighttype::regtype) AS e FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am am ON am.oid = f.opfmethod WHERE f.opfname LIKE \'timeuuid%\' UNION ALL SELECT format(\'%s %s proc %s %s(%s,%s)\', f.opfname, am.amname, p.amprocnum, p.amproc::regprocedure, p.amproclefttype::regtype, p.amprocrighttype::regtype) FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod WHERE f.opfname LIKE \'timeuuid%\') x'

-- The member operators' properties (commutator, negator, estimators, and
-- whether they hash and merge), which the definitions above do not show.
\set operators 'SELECT md5(string_agg(e, E\'\\n\' ORDER BY e)) AS operators_md5 FROM (SELECT format(\'%s %s com %s neg %s %s %s hashes %s merges %s\', o.oid::regoperator, o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge) AS e FROM pg_operator o JOIN pg_depend d ON d.classid = \'pg_operator\'::regclass AND d.objid = o.oid WHERE d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\')) x'

\c id_gen_upgraded
CREATE EXTENSION id_gen VERSION '1.0';
-- The library is 1.4's, which makes no key under 1.0's SQL: the keys are
-- written as 1.0's library wrote them (a row of id_gen.hilo_key; an own
-- key's sequence id_gen.hilo_seq_<n>, numbered by id_gen.hilo_seq_counter),
-- and a block of each drawn with nextval().  test/t/057_hilo_update.pl
-- updates every kind of key from every version.
CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'));
SELECT nextval('id_gen.hilo_seq_counter') AS n \gset
CREATE SEQUENCE id_gen.hilo_seq_:n AS bigint MINVALUE 0 START 0 NO CYCLE;
GRANT SELECT ON SEQUENCE id_gen.hilo_seq_:n TO PUBLIC;
INSERT INTO id_gen.hilo_key VALUES ('t', 'id_gen.hilo_seq_' || :n, 'classic', 1000, true);
SELECT nextval('id_gen.hilo_seq_' || :n) AS hi;
INSERT INTO t VALUES (1);
-- A key bound to a sequence whose name needs quotes.
CREATE SCHEMA "App Schema";
CREATE SEQUENCE "App Schema"."Order Seq" INCREMENT 10;
CREATE TABLE bound (id bigint PRIMARY KEY DEFAULT hilo_next('bound'));
INSERT INTO id_gen.hilo_key VALUES ('bound', '"App Schema"."Order Seq"', 'pooled_lo', 10, false);
SELECT nextval('"App Schema"."Order Seq"') AS hi;
INSERT INTO bound VALUES (1);
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
ALTER EXTENSION id_gen UPDATE TO '1.4';
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
-- The keys are 1.4's: the own sequence moved to the table as its column's,
-- the bound one named in the default.
SELECT table_name, column_name, sequence, strategy, max_lo, own_sequence, last_hi
  FROM id_gen.hilo_keys ORDER BY table_name::text;
-- The Hi/Lo keys created under 1.0 carry on after the updates.
INSERT INTO t DEFAULT VALUES;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM t;
INSERT INTO bound DEFAULT VALUES;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids, max(id) AS max_id FROM bound;
-- Members, configuration tables, columns, definitions, comments,
-- privileges and operator families of the updated extension, kept for the
-- comparison below (the values themselves differ between PostgreSQL
-- versions: 17 and 18 have some of the names in core, see id_gen--1.4.sql).
:members \gset up_
:config \gset up_
:columns \gset up_
:definitions \gset up_
:annotations \gset up_
:families \gset up_
:operators \gset up_

\c id_gen_fresh
CREATE EXTENSION id_gen;
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
:members \gset fresh_
:config \gset fresh_
:columns \gset fresh_
:definitions \gset fresh_
:annotations \gset fresh_
:families \gset fresh_
:operators \gset fresh_
-- Both ways end with the same extension.
SELECT :'fresh_members' AS members,
       :'up_members' = :'fresh_members' AND :'up_members_md5' = :'fresh_members_md5' AS same_members,
       :'up_config' = :'fresh_config' AS same_configuration_tables,
       :'up_config_columns' = :'fresh_config_columns' AS same_columns,
       :'up_definitions_md5' = :'fresh_definitions_md5' AS same_definitions;
SELECT :'up_annotations_md5' = :'fresh_annotations_md5' AND :'up_commented' = :'fresh_commented'
         AS same_comments_and_privileges,
       :'up_family_entries' = :'fresh_family_entries' AND :'up_families_md5' = :'fresh_families_md5'
         AS same_operator_families,
       :'up_operators_md5' = :'fresh_operators_md5' AS same_operators;

\c postgres
DROP DATABASE id_gen_upgraded;
DROP DATABASE id_gen_fresh;
