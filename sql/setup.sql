-- The extension installs on a stock server: no shared_preload_libraries, no restart.
CREATE EXTENSION id_gen;
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
SHOW shared_preload_libraries;
-- Internals live in the id_gen schema, which the extension owns.
SELECT nspname FROM pg_namespace n JOIN pg_depend d ON d.objid = n.oid
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')
   AND d.classid = 'pg_namespace'::regclass;
SELECT id_gen.noop();
