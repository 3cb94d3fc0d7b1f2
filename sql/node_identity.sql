-- node_identity(): the worker id and launch id this node writes into its ids
-- and where each comes from.  Precedence: an explicit setting wins; left
-- automatic (-1), a Citus node takes its group id (worker id = group,
-- launch id = group + 1); elsewhere the worker id is 0 and decimal_id()
-- needs id_gen.launch_id.  The regression server sets id_gen.launch_id = 1
-- and leaves id_gen.worker_id automatic (test/regress.conf).
SELECT * FROM node_identity();
SHOW id_gen.worker_id;
-- A single server needs no setting for snowflake_next() and jsid_next().
SELECT (snowflake_decode(snowflake_next())).worker_id AS snowflake_worker,
       (jsid_decode(jsid_next())).worker_id AS jsid_worker;

-- A Citus node: Citus keeps the node's group in pg_catalog.pg_dist_local_group.
-- Here a stand-in table plays it.  The group is read once per transaction
-- (a worker learns its group at citus_add_node), so every change below is
-- seen by the next transaction of the same session.
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_local_group (groupid int NOT NULL PRIMARY KEY);
INSERT INTO pg_catalog.pg_dist_local_group VALUES (3);
RESET allow_system_table_mods;
SELECT * FROM node_identity();
SELECT (snowflake_decode(snowflake_next())).worker_id AS snowflake_worker,
       (jsid_decode(jsid_next())).worker_id AS jsid_worker,
       (decimal_id_decode(decimal_id())).launch_id AS launch_from_setting;
SELECT worker_id FROM snowflake_state();

-- With id_gen.launch_id automatic, the launch id is the group + 1: distinct
-- for every group, the coordinator's 0 included, never the test-only 0.
ALTER SYSTEM SET id_gen.launch_id = -1;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SELECT launch_id, launch_id_source FROM node_identity();
SELECT (decimal_id_decode(decimal_id())).launch_id AS launch_from_group;
SELECT launch_id FROM decimal_id_state();

-- An explicit setting wins over the group (and 0 is a setting, not "automatic").
ALTER SYSTEM SET id_gen.worker_id = 0;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SELECT worker_id, worker_id_source FROM node_identity();
SELECT (snowflake_decode(snowflake_next())).worker_id AS explicit_zero;
ALTER SYSTEM RESET id_gen.worker_id;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);

-- Group ids grow as nodes are re-added.  Past a field's range the generator
-- refuses with a hint, never wraps onto another group's bits.
UPDATE pg_catalog.pg_dist_local_group SET groupid = 16;
SELECT * FROM node_identity();
SELECT (snowflake_decode(snowflake_next())).worker_id AS snowflake_still_fits;
SELECT jsid_next(); \echo :LAST_ERROR_SQLSTATE
UPDATE pg_catalog.pg_dist_local_group SET groupid = 1024;
SELECT snowflake_next(); \echo :LAST_ERROR_SQLSTATE
SELECT worker_id FROM snowflake_state();
SELECT (decimal_id_decode(decimal_id())).launch_id AS launch_still_fits;
UPDATE pg_catalog.pg_dist_local_group SET groupid = 99999;
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM node_identity();
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_local_group;
RESET allow_system_table_mods;
ALTER SYSTEM RESET id_gen.launch_id;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
-- Citus gone, launch id back to the configuration file's 1.
SELECT * FROM node_identity();

-- Collisions across nodes: the identities of several servers, one JSON
-- object each (SELECT to_jsonb(i) FROM node_identity() i on each, plus a
-- "node" name), in one array.
SELECT * FROM node_identity_collisions(
    '[{"node": "a", "worker_id": 1, "launch_id": 1},
      {"node": "b", "worker_id": 2, "launch_id": 2}]');
SELECT * FROM node_identity_collisions(
    '[{"node": "a", "worker_id": 0, "launch_id": 1},
      {"node": "b", "worker_id": 0, "launch_id": 1},
      {"node": "c", "worker_id": 0, "launch_id": null},
      {"node": "d", "worker_id": 5, "launch_id": 2}]');
-- unnamed nodes are numbered
SELECT * FROM node_identity_collisions('[{"worker_id": 7}, {"worker_id": 7}]');
-- this server compared with a copy of itself (a clone that kept its settings)
SELECT field, value, nodes FROM node_identity_collisions(
    (SELECT jsonb_build_array(to_jsonb(i) || '{"node": "primary"}', to_jsonb(i) || '{"node": "clone"}')
       FROM node_identity() i));
SELECT * FROM node_identity_collisions('{"worker_id": 1}'); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM node_identity_collisions('[1, 2]'); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM node_identity_collisions('[{"worker_id": "x"}]'); \echo :LAST_ERROR_SQLSTATE
-- The cluster-wide check runs through Citus.
SELECT * FROM node_identity_check(); \echo :LAST_ERROR_SQLSTATE

-- Settings: -1 is "automatic", below is refused.
ALTER SYSTEM SET id_gen.worker_id = -2;
ALTER SYSTEM SET id_gen.launch_id = -2;
SELECT p.oid::regprocedure, provolatile, proparallel
  FROM pg_proc p WHERE proname LIKE 'node_identity%' ORDER BY 1::text;
