-- Hi/Lo on many nodes.  Outside Citus, a server with id_gen.hilo_node_ranges
-- on (test/t/035_hilo_node_positions.pl) makes its keys' sequences with its
-- node's range as MINVALUE and MAXVALUE, node * 2^43 .. (node + 1) * 2^43 - 1,
-- below 2^53, JavaScript's exact integers.  On Citus, each worker's copy of
-- a key's sequence has the window Citus gives it; the sequence counts ids
-- and blocks never reach below MINVALUE, so the ids are the window's.  Here
-- a stand-in pg_catalog.pg_dist_local_group plays Citus (as in
-- node_identity.sql); the group is read once per transaction.
SELECT n, r.* FROM generate_series(0, 3) n, hilo_node_range(n) r
UNION ALL SELECT 1023, r.* FROM hilo_node_range(1023) r;
SELECT hilo_node_of(1), hilo_node_of(8796093022207), hilo_node_of(8796093022208),
       hilo_node_of(9007199254740991);
-- No node's: ids below 1, and from 2^53 on.
SELECT hilo_node_of(9007199254740992), hilo_node_of(9223372036854775807), hilo_node_of(0), hilo_node_of(-1);
SELECT hilo_node_range(1024); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_node_range(-1); \echo :LAST_ERROR_SQLSTATE

-- A single server: keys start at 1.
CREATE TABLE nodes_single (id bigint PRIMARY KEY DEFAULT hilo_next('nodes_single'));
SELECT hilo_create_key('nodes_single', max_lo => 10);
INSERT INTO nodes_single SELECT FROM generate_series(1, 3) RETURNING id, hilo_node_of(id);

-- A Citus worker of group 2.
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_local_group (groupid int NOT NULL PRIMARY KEY);
INSERT INTO pg_catalog.pg_dist_local_group VALUES (2);
RESET allow_system_table_mods;
-- Citus runs a shard's DDL from a function (worker_apply_shard_ddl_command()),
-- never as a top-level statement.
CREATE FUNCTION nodes_citus_runs(ddl text) RETURNS void LANGUAGE plpgsql AS $$ BEGIN EXECUTE ddl; END $$;

-- A distributed table's key on a Citus worker, as Citus makes it there.
-- First the key's sequence from the coordinator's definition, given this
-- node's window of values ((group << 48) + 1 and 2^48 above); then the
-- shards, with the table's DDL renamed, before the shell table exists;
-- then the shell table, owning the sequence.
CREATE SEQUENCE nodes_dist_id_seq AS bigint INCREMENT 10 MINVALUE 1 START 1;
ALTER SEQUENCE nodes_dist_id_seq START 562949953421313 MINVALUE 562949953421313
  MAXVALUE 844424930131969 RESTART 562949953421313;
SELECT nodes_citus_runs($$CREATE TABLE nodes_dist_102008 (id bigint PRIMARY KEY DEFAULT hilo_next('public.nodes_dist'::regclass), n int)$$);
SELECT nodes_citus_runs($$CREATE TABLE nodes_dist_102009 (id text DEFAULT hilo_next_text('public.nodes_dist'::regclass))$$);
-- The shard's default names the shell table by name, resolved at each
-- call: it draws from the shell table's key.
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'nodes_dist_102008'::regclass;
CREATE TABLE nodes_dist (id bigint PRIMARY KEY DEFAULT hilo_next('public.nodes_dist'::regclass), n int);
ALTER SEQUENCE nodes_dist_id_seq OWNED BY nodes_dist.id;
-- The worker's ids lie in its window, from its start.
INSERT INTO nodes_dist (n) VALUES (0) RETURNING id - 562949953421313 AS into_window;
INSERT INTO nodes_dist_102008 (n) SELECT g FROM generate_series(1, 12) g
RETURNING id - 562949953421313 AS into_window;
INSERT INTO nodes_dist_102009 DEFAULT VALUES RETURNING split_part(id, '/', 1) AS text_id_of;
-- A block size changed on the node itself (Citus refuses ALTER SEQUENCE of
-- a distributed key): later blocks lie above, in the window.
ALTER SEQUENCE nodes_dist_id_seq INCREMENT BY 100;
\c
INSERT INTO nodes_dist_102008 (n) VALUES (13), (14) RETURNING id - 562949953421313 AS into_window;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids FROM nodes_dist_102008;
SELECT reserved_to - 562949953421313 AS reserved_in_window FROM id_gen.hilo_keys WHERE table_name = 'nodes_dist'::regclass;
SELECT status FROM id_gen.headroom WHERE generator = 'hilo' AND object = 'public.nodes_dist';
DROP TABLE nodes_dist_102008, nodes_dist_102009, nodes_dist;

-- Citus leaves a sequence that is not bigint exhausted on every worker: an
-- integer key on Citus is refused with the way out.
CREATE TABLE nodes_int (id integer DEFAULT hilo_next('nodes_int'));
SELECT hilo_create_key('nodes_int');
INSERT INTO nodes_int DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
DROP TABLE nodes_int;

-- Where the table exists (a reference table's shard on the coordinator),
-- the shard's default names it by name too: it holds neither the table nor
-- its key's sequence against DROP TABLE, which Citus runs before dropping
-- the shards.
CREATE TABLE nodes_ref (id bigint PRIMARY KEY DEFAULT hilo_next('nodes_ref'));
SELECT hilo_create_key('nodes_ref');
SELECT nodes_citus_runs($$CREATE TABLE nodes_ref_102200 (id bigint PRIMARY KEY DEFAULT hilo_next('public.nodes_ref'::regclass))$$);
INSERT INTO nodes_ref_102200 DEFAULT VALUES RETURNING id;
SELECT nodes_citus_runs($$ALTER TABLE nodes_ref_102200 ALTER COLUMN id SET DEFAULT hilo_next('public.nodes_ref'::regclass)$$);
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'nodes_ref_102200'::regclass;
DROP TABLE nodes_ref;
SELECT count(*) AS key_sequence_left FROM pg_class WHERE relname = 'nodes_ref_id_seq';
DROP TABLE nodes_ref_102200;

-- undistribute_table() and alter_distributed_table() make the table anew as
-- <name>_<hash of name>, drop the old one (CASCADE) and rename the new one:
-- its default names the new table, so it survives as the table's key.
CREATE TABLE nodes_u (id bigint PRIMARY KEY DEFAULT hilo_next('nodes_u'));
SELECT hilo_create_key('nodes_u');
SELECT 'nodes_u_' || (hashtext('nodes_u')::bigint & 4294967295) AS temp_name \gset
SELECT nodes_citus_runs(format($$CREATE TABLE %I (id bigint PRIMARY KEY DEFAULT hilo_next('public.nodes_u'::regclass))$$, :'temp_name'));
ALTER SEQUENCE nodes_u_id_seq OWNED BY :temp_name.id;
DROP TABLE nodes_u CASCADE;
ALTER TABLE :temp_name RENAME TO nodes_u;
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'nodes_u'::regclass;
INSERT INTO nodes_u DEFAULT VALUES RETURNING id;
DROP TABLE nodes_u;

-- A table of the user's own named like a shard keeps its default as written.
CREATE TABLE nodes_user_2024 (id bigint DEFAULT hilo_next('nodes_single'::regclass));
ALTER TABLE nodes_user_2024 ALTER id SET DEFAULT hilo_next('public.nodes_single'::regclass);
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'nodes_user_2024'::regclass;
DROP TABLE nodes_user_2024;
DROP FUNCTION nodes_citus_runs(text);

SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_local_group;
RESET allow_system_table_mods;
DROP TABLE nodes_single;
