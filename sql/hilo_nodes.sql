-- Hi/Lo on many nodes: a Citus node (or, outside Citus, a server with
-- id_gen.hilo_node_ranges on: test/t/035_hilo_node_positions.pl) draws its
-- own keys' ids from its own range, node * 2^43 .. (node + 1) * 2^43 - 1,
-- so two nodes never hand out one id, whatever each key's history; every
-- range lies below 2^53, JavaScript's exact integers.  A single server
-- keeps the whole space, whatever its worker id.  Here a stand-in
-- pg_catalog.pg_dist_local_group plays Citus (as in node_identity.sql);
-- the group is read once per transaction.
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
SELECT hilo_set_max_lo('nodes_single', 10);
INSERT INTO nodes_single SELECT FROM generate_series(1, 3) RETURNING id, hilo_node_of(id);

-- Node 3 (a Citus group).  A new key starts at the range; hilo_reserve too.
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_local_group (groupid int NOT NULL PRIMARY KEY);
INSERT INTO pg_catalog.pg_dist_local_group VALUES (3);
RESET allow_system_table_mods;
CREATE TABLE nodes_on3 (id bigint PRIMARY KEY DEFAULT hilo_next('nodes_on3'));
SELECT hilo_set_max_lo('nodes_on3', 10);
INSERT INTO nodes_on3 SELECT FROM generate_series(1, 3) RETURNING id, hilo_node_of(id);
SELECT first_id, last_id, hilo_node_of(first_id) FROM hilo_reserve('nodes_on3', 10);

-- A key made before the node had its identity: the block this session
-- holds stays good (it was drawn when the node used the whole space); its
-- next block would lie below the node's range, which no draw moves a key
-- into (no draw moves a key): refused, with the command that does.
INSERT INTO nodes_single SELECT FROM generate_series(1, 7) RETURNING id, hilo_node_of(id);
INSERT INTO nodes_single DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
SELECT hilo_node_of(hilo_set_floor('nodes_single')) AS moved_into_node;
\c
INSERT INTO nodes_single DEFAULT VALUES RETURNING id, hilo_node_of(id);
SELECT hilo_node_of(max(id)) AS node, count(*) FILTER (WHERE hilo_node_of(id) = 0) AS before_identity
  FROM nodes_single;

-- The node is renumbered (re-added as group 5): likewise, its owner moves
-- the key into the new range.  A node given a lower worker id by hand
-- keeps drawing where it was (its old range is its own, no other node's).
UPDATE pg_catalog.pg_dist_local_group SET groupid = 5;
\c
INSERT INTO nodes_on3 DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
SELECT hilo_node_of(hilo_set_floor('nodes_on3')) AS now_in;

-- The end of a node's range: the key is exhausted here, never spilling
-- into node 6's range.
SELECT hilo_set_floor('nodes_on3', (SELECT last_id - 17 FROM hilo_node_range(5)));
\c
INSERT INTO nodes_on3 SELECT FROM generate_series(1, 10)
RETURNING id, hilo_node_of(id), (SELECT last_id FROM hilo_node_range(5)) - id AS before_end;
INSERT INTO nodes_on3 DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
SELECT first_id FROM hilo_reserve('nodes_on3', 1); \echo :LAST_ERROR_SQLSTATE

-- A group past 1023 has no range: refused with a hint, like snowflake_next().
UPDATE pg_catalog.pg_dist_local_group SET groupid = 1024;
\c
CREATE TABLE nodes_far (id bigint DEFAULT hilo_next('nodes_far')); \echo :LAST_ERROR_SQLSTATE

-- A bound key draws from the application's sequence, which the application
-- numbers per node: it is not moved.
UPDATE pg_catalog.pg_dist_local_group SET groupid = 2;
CREATE TABLE nodes_app (id bigint PRIMARY KEY DEFAULT hilo_next('nodes_app'));
CREATE SEQUENCE nodes_app_seq;
SELECT hilo_bind('nodes_app', 'nodes_app_seq', 'pooled_lo', 1);
\c
INSERT INTO nodes_app SELECT FROM generate_series(1, 2) RETURNING id;

-- A distributed table's key on a Citus worker, as Citus makes it there.
-- First the key's sequence from the coordinator's definition, given this
-- node's window of values ((group << 48) + 1 and 2^48 above: Citus does so
-- to every bigint sequence a distributed table uses, and again whenever it
-- finds other bounds); then the shards, with the table's DDL renamed,
-- before the shell table exists; then the shell table, owning the sequence.
CREATE SEQUENCE nodes_dist_id_seq AS bigint MINVALUE 0 START 0;
ALTER SEQUENCE nodes_dist_id_seq START 562949953421313 MINVALUE 562949953421313
  MAXVALUE 844424930131969 RESTART 562949953421313;
CREATE TABLE nodes_dist_102008 (id bigint PRIMARY KEY DEFAULT hilo_next('public.nodes_dist'::regclass,
  'public.nodes_dist_id_seq'::regclass, 'classic'::text, 10, true, NULL::text), n int);
CREATE TABLE nodes_dist_102009 (id text DEFAULT hilo_next_text('public.nodes_dist'::regclass,
  hilo_next('public.nodes_dist'::regclass, 'public.nodes_dist_id_seq'::regclass, 'classic'::text, 10, true, NULL::text)));
-- The shard's default is the short form naming the shell table by name,
-- resolved at each call: it draws as the shell table's key states.
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'nodes_dist_102008'::regclass;
CREATE TABLE nodes_dist (id bigint PRIMARY KEY DEFAULT hilo_next('public.nodes_dist'::regclass,
  'public.nodes_dist_id_seq'::regclass, 'classic'::text, 10, true, NULL::text), n int);
ALTER SEQUENCE nodes_dist_id_seq OWNED BY nodes_dist.id;
-- The worker's key draws node 2's range from the window's start.
INSERT INTO nodes_dist (n) VALUES (0) RETURNING id - (SELECT first_id FROM hilo_node_range(2)) AS into_range;
INSERT INTO nodes_dist_102008 (n) SELECT g FROM generate_series(1, 12) g
RETURNING id - (SELECT first_id FROM hilo_node_range(2)) AS into_range, hilo_node_of(id);
INSERT INTO nodes_dist_102009 DEFAULT VALUES RETURNING split_part(id, '/', 1) AS text_id_of;
-- A block size changed on the coordinator reaches the worker as ALTER
-- TABLE ... SET DEFAULT: the worker's key moves above what it gave, in the
-- window; Citus' bounds stay, and its next metadata sync leaves it alone.
ALTER TABLE nodes_dist ALTER COLUMN id SET DEFAULT hilo_next('public.nodes_dist'::regclass,
  'public.nodes_dist_id_seq'::regclass, 'classic'::text, 100, true, NULL::text);
ALTER TABLE nodes_dist_102008 ALTER COLUMN id SET DEFAULT hilo_next('public.nodes_dist'::regclass,
  'public.nodes_dist_id_seq'::regclass, 'classic'::text, 100, true, NULL::text);
\c
INSERT INTO nodes_dist_102008 (n) VALUES (13), (14) RETURNING hilo_node_of(id),
  id > (SELECT max(id) FROM nodes_dist_102008 WHERE n <= 12) AS above_earlier;
SELECT min_value = 562949953421313 AS window_kept FROM pg_sequences WHERE sequencename = 'nodes_dist_id_seq';
SELECT hilo_node_of(hilo_set_floor('nodes_dist')) AS floor_in_node;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids FROM nodes_dist_102008;
-- What the worker has reserved, as the views show it: in node 2's range.
SELECT hilo_node_of(reserved_to) AS reserved_in_node FROM id_gen.hilo_keys WHERE table_name = 'nodes_dist'::regclass;
SELECT status FROM id_gen.headroom WHERE generator = 'hilo' AND object = 'public.nodes_dist';
DROP TABLE nodes_dist_102008, nodes_dist_102009, nodes_dist;
-- Where the table exists (a reference table's shard on the coordinator),
-- the shard's default names it by name too: it holds neither the table nor
-- its key's sequence against DROP TABLE, which Citus runs before dropping
-- the shards.
CREATE TABLE nodes_ref (id bigint PRIMARY KEY DEFAULT hilo_next('nodes_ref'));
CREATE TABLE nodes_ref_102200 (id bigint PRIMARY KEY DEFAULT hilo_next('public.nodes_ref'::regclass,
  'public.nodes_ref_id_seq'::regclass, 'classic'::text, 1000, true, NULL::text));
INSERT INTO nodes_ref_102200 DEFAULT VALUES RETURNING hilo_node_of(id);
-- Likewise the ALTER TABLE a change of the key (hilo_set_max_lo) sends to
-- each shard.
ALTER TABLE nodes_ref_102200 ALTER COLUMN id SET DEFAULT hilo_next('public.nodes_ref'::regclass,
  'public.nodes_ref_id_seq'::regclass, 'classic'::text, 100, true, NULL::text);
SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'nodes_ref_102200'::regclass;
DROP TABLE nodes_ref;
SELECT count(*) AS key_sequence_left FROM pg_class WHERE relname = 'nodes_ref_id_seq';
DROP TABLE nodes_ref_102200;

-- A key is made before Citus distributes its table, never after: Citus
-- sends ALTER TABLE ... SET DEFAULT to every node as written, and each
-- worker would make a key of its own, replaced by the copy of the
-- coordinator's at the next metadata sync (seen: 2,208 ids handed out
-- twice).  A stand-in pg_dist_partition lists the distributed tables.
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass NOT NULL);
RESET allow_system_table_mods;
CREATE TABLE nodes_early (id bigint DEFAULT hilo_next('nodes_early'));
CREATE TABLE nodes_late (id bigint, n int);
INSERT INTO pg_catalog.pg_dist_partition VALUES ('nodes_early'), ('nodes_late');
ALTER TABLE nodes_late ALTER COLUMN id SET DEFAULT hilo_next('nodes_late'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('nodes_late', 'id'); \echo :LAST_ERROR_SQLSTATE
SELECT table_name FROM id_gen.hilo_keys WHERE table_name::text IN ('nodes_early', 'nodes_late');
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
RESET allow_system_table_mods;
DROP TABLE nodes_early, nodes_late;

SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_local_group;
RESET allow_system_table_mods;
DROP TABLE nodes_single, nodes_on3, nodes_app;
DROP SEQUENCE nodes_app_seq;
