-- Update paths.  A new install runs the one install script of the current
-- release; a database of the previous release runs ALTER EXTENSION ...
-- UPDATE through the update script.  Both must end with exactly the same
-- objects, comments and privileges: this file compares them.
--
-- There is no previous release yet, so the "updated" database below is a
-- second fresh install: the comparison then checks that the digests are
-- computed and do not depend on the database (OIDs, creation order).  To
-- test the next release's update script: keep the previous release's install
-- script as sql/id_gen--P.sql beside the update script sql/id_gen--P--N.sql
-- (both installed, as contrib's hstore ships its old base script), set
-- previous below to 'P', and accept the new expected output after reading
-- its diff.
\set previous ''
SELECT :'previous' <> '' AS has_previous \gset

-- The paths ALTER EXTENSION UPDATE can take: none without a previous release.
SELECT source, target, path FROM pg_extension_update_paths('id_gen')
 WHERE path IS NOT NULL ORDER BY source, target;

-- A database made with a development build (1.0 to 1.4, never released)
-- cannot be updated: it moves by dump and restore.  Each version is
-- written into the catalog of a fresh install, as such a database has it.
CREATE DATABASE id_gen_development;
\c id_gen_development
CREATE EXTENSION id_gen;
SELECT extversion AS release FROM pg_extension WHERE extname = 'id_gen' \gset
CREATE FUNCTION pg_temp.update_error(v text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  UPDATE pg_catalog.pg_extension SET extversion = v WHERE extname = 'id_gen';
  ALTER EXTENSION id_gen UPDATE;
  RETURN 'updated';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ' ' || regexp_replace(SQLERRM, 'to version "[^"]*"', 'to the release');
END $$;
-- (1.4 is the release's own version until the install script is renamed.)
SELECT count(*) >= 4 AS versions_tested,
       bool_and(pg_temp.update_error(v) = '22023 extension "id_gen" has no update path from version "'
                                          || v || '" to the release') AS none_updates
  FROM unnest(ARRAY['1.0', '1.1', '1.2', '1.3', '1.4']) AS v
 WHERE v <> :'release';
\c postgres
DROP DATABASE id_gen_development;

-- The extension's members (count and digest of their schema-qualified
-- identities, which do not depend on what search_path shows) and its
-- configuration tables (as a set: an update appends its new ones after the
-- old ones).  From 17 on, the types a table, view or type brings with it
-- (its row type, its array type) are members too; they follow their owner,
-- so they are left out and the count is the same on every version.
\set members 'SELECT count(*) AS members, md5(string_agg(obj, E\'\\n\' ORDER BY obj)) AS members_md5 FROM (SELECT (SELECT type || \' \' || identity FROM pg_identify_object(classid, objid, objsubid)) AS obj FROM pg_depend WHERE refclassid = \'pg_extension\'::regclass AND deptype = \'e\' AND refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\') AND NOT (classid = \'pg_type\'::regclass AND objid IN (SELECT typarray FROM pg_type UNION ALL SELECT reltype FROM pg_class WHERE relkind <> \'c\'))) m'
\set config 'SELECT array(SELECT c::regclass::text FROM pg_extension, unnest(extconfig) AS c WHERE extname = \'id_gen\' ORDER BY 1)::text AS config'

-- Column types of the configuration tables and the definitions of the
-- member functions and views: an update script that changes a column or a
-- function must leave them as a fresh install has them.
\set columns 'SELECT coalesce(string_agg(format(\'%s.%s %s\', c.relname, a.attname, format_type(a.atttypid, a.atttypmod)), \', \' ORDER BY c.relname, a.attnum), \'-\') AS config_columns FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relkind = \'r\' AND a.attnum > 0 AND NOT a.attisdropped AND c.oid = ANY ((SELECT extconfig FROM pg_extension WHERE extname = \'id_gen\')::oid[])'
\set definitions 'SELECT md5(string_agg(def, E\'\\n\' ORDER BY def)) AS definitions_md5 FROM (SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_depend d ON d.classid = \'pg_proc\'::regclass AND d.objid = p.oid WHERE d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\') AND p.prokind <> \'a\' UNION ALL SELECT pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_depend d ON d.classid = \'pg_class\'::regclass AND d.objid = c.oid WHERE c.relkind = \'v\' AND d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\')) x'

-- Comments and privileges of the members: an update script that forgets a
-- COMMENT or a GRANT leaves users with a different extension than a fresh
-- install gives.
\set annotations 'SELECT md5(string_agg(line, E\'\\n\' ORDER BY line)) AS annotations_md5, count(described) AS commented FROM (SELECT pg_describe_object(d.classid, d.objid, d.objsubid) || \': \' || coalesce(ds.description, \'-\') || \' \' || coalesce((SELECT relacl::text FROM pg_class WHERE d.classid = \'pg_class\'::regclass AND oid = d.objid), (SELECT proacl::text FROM pg_proc WHERE d.classid = \'pg_proc\'::regclass AND oid = d.objid), (SELECT nspacl::text FROM pg_namespace WHERE d.classid = \'pg_namespace\'::regclass AND oid = d.objid), (SELECT typacl::text FROM pg_type WHERE d.classid = \'pg_type\'::regclass AND oid = d.objid), \'-\') AS line, ds.description AS described FROM pg_depend d LEFT JOIN pg_description ds ON ds.classoid = d.classid AND ds.objoid = d.objid AND ds.objsubid = d.objsubid WHERE d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\')) x'

-- The operator families' contents (operators and support functions by
-- strategy and types): members of a family are not extension members.
\set families 'SELECT count(*) AS family_entries, md5(string_agg(e, E\'\\n\' ORDER BY e)) AS families_md5 FROM (SELECT format(\'%s %s op %s %s(%s,%s)\', f.opfname, am.amname, o.amopstrategy, o.amopopr::regoperator, o.amoplefttype::regtype, o.amoprighttype::regtype) AS e FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am am ON am.oid = f.opfmethod WHERE f.opfname LIKE \'timeuuid%\' UNION ALL SELECT format(\'%s %s proc %s %s(%s,%s)\', f.opfname, am.amname, p.amprocnum, p.amproc::regprocedure, p.amproclefttype::regtype, p.amprocrighttype::regtype) FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod WHERE f.opfname LIKE \'timeuuid%\') x'

-- The member operators' properties (commutator, negator, estimators, and
-- whether they hash and merge), which the definitions above do not show.
\set operators 'SELECT md5(string_agg(e, E\'\\n\' ORDER BY e)) AS operators_md5 FROM (SELECT format(\'%s %s com %s neg %s %s %s hashes %s merges %s\', o.oid::regoperator, o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge) AS e FROM pg_operator o JOIN pg_depend d ON d.classid = \'pg_operator\'::regclass AND d.objid = o.oid WHERE d.refclassid = \'pg_extension\'::regclass AND d.deptype = \'e\' AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = \'id_gen\')) x'

CREATE DATABASE id_gen_upgraded;
CREATE DATABASE id_gen_fresh;

\c id_gen_upgraded
\if :has_previous
CREATE EXTENSION id_gen VERSION :'previous';
\else
CREATE EXTENSION id_gen;
\endif
-- Rows written before the update: a Hi/Lo key carries on after it.
CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'));
SELECT hilo_create_key('t') IS NOT NULL AS key_made;
INSERT INTO t DEFAULT VALUES;
-- (Quiet: without a previous release it only says the version is there.)
SET client_min_messages = warning;
ALTER EXTENSION id_gen UPDATE;
RESET client_min_messages;
SELECT extversion = :'release' AS at_the_release FROM pg_extension WHERE extname = 'id_gen';
INSERT INTO t DEFAULT VALUES;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM t;
-- The updated extension, kept for the comparison below (the values differ
-- between PostgreSQL versions: 17 and 18 have some of the names in core).
:members \gset up_
:config \gset up_
:columns \gset up_
:definitions \gset up_
:annotations \gset up_
:families \gset up_
:operators \gset up_

\c id_gen_fresh
CREATE EXTENSION id_gen;
:members \gset fresh_
:config \gset fresh_
:columns \gset fresh_
:definitions \gset fresh_
:annotations \gset fresh_
:families \gset fresh_
:operators \gset fresh_
-- Both ways end with the same extension (a digest of nothing is NULL, and
-- NULL is never the same as anything here).
SELECT :'fresh_members' > 0 AS has_members,
       :'up_members' = :'fresh_members' AND :'up_members_md5' = :'fresh_members_md5' AS same_members,
       :'up_config' = :'fresh_config' AS same_configuration_tables,
       :'up_config_columns' = :'fresh_config_columns' AS same_columns,
       :'up_definitions_md5' = :'fresh_definitions_md5' AS same_definitions;
SELECT :'up_annotations_md5' = :'fresh_annotations_md5' AND :'up_commented' = :'fresh_commented'
         AS same_comments_and_privileges,
       :'fresh_family_entries' > 0
       AND :'up_family_entries' = :'fresh_family_entries' AND :'up_families_md5' = :'fresh_families_md5'
         AS same_operator_families,
       :'up_operators_md5' = :'fresh_operators_md5' AS same_operators;

\c postgres
DROP DATABASE id_gen_upgraded;
DROP DATABASE id_gen_fresh;
