-- timeuuid's operator families with uuid inside: uuid[] parameters (= ANY),
-- IN lists, IN / NOT IN subqueries, joins and DISTINCT over a timeuuid
-- column and uuid values, under every plan the planner can choose.  A
-- statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE.
SET timezone = 'UTC';
CREATE SCHEMA families;
SET search_path = families, public;

-- 1. Every operator class of the extension passes its access method's
-- validator (amvalidate prints an INFO line for each gap it finds): the
-- families holding the (timeuuid, uuid) and (uuid, timeuuid) members also
-- hold the (uuid, uuid) ones that btree and hash look up for the uuid side.
SELECT c.opcname, a.amname, amvalidate(c.oid) AS valid
  FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
  JOIN pg_depend d ON d.classid = 'pg_opclass'::regclass AND d.objid = c.oid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')
 ORDER BY 1;

-- The (uuid, uuid) members compare two uuids as timeuuids: in time order,
-- as the cross-type operators do, checking both sides as the cast does.
-- They have names of their own (uuid's own =, < ... keep uuid's byte order).
SELECT o.oprname, format_type(o.oprleft, NULL) AS l, format_type(o.oprright, NULL) AS r,
       o.oprcanhash, o.oprcanmerge, f.opfname, a.amname, ao.amopstrategy
  FROM pg_amop ao JOIN pg_operator o ON o.oid = ao.amopopr
  JOIN pg_opfamily f ON f.oid = ao.amopfamily JOIN pg_am a ON a.oid = f.opfmethod
 WHERE f.opfname IN ('timeuuid_ops', 'timeuuid_hash_ops') AND ao.amoplefttype = 'uuid'::regtype
   AND ao.amoprighttype = 'uuid'::regtype
 ORDER BY f.opfname, ao.amopstrategy;

-- Values of every version on one time line: v7, v6 and v1 (whose bytes do
-- not sort by time: time_low comes first), one every 37 seconds.
CREATE FUNCTION pg_temp.v1_at(ts timestamptz, node int) RETURNS timeuuid
LANGUAGE sql IMMUTABLE AS $$
  SELECT (lpad(to_hex(ticks & x'ffffffff'::bigint), 8, '0') || '-' ||
          lpad(to_hex((ticks >> 32) & 65535), 4, '0') || '-' ||
          lpad(to_hex(4096 | (ticks >> 48)), 4, '0') || '-8000-' ||
          lpad(to_hex(node), 12, '0'))::uuid::timeuuid
    FROM (SELECT (extract(epoch FROM ts) * 10000000)::bigint + 122192928000000000 AS ticks) s
$$;
CREATE TABLE events (id timeuuid PRIMARY KEY, n int NOT NULL);
INSERT INTO events
SELECT CASE g % 3 WHEN 0 THEN timeuuid_min(t)
                  WHEN 1 THEN timeuuid_v1_to_v6(pg_temp.v1_at(t, g)::uuid)
                  ELSE pg_temp.v1_at(t, g) END, g
  FROM generate_series(1, 1500) g, LATERAL (SELECT timestamptz '2024-01-01' + g * interval '37 seconds') x(t);
-- uuid values from elsewhere: every fifth id of events, and 1500 time
-- uuids that are not there (too many to hash in 64 kB).  The column may be
-- NULL, as far as the planner knows: 19 turns NOT IN over NOT NULL columns
-- into an anti join, and the subplan shapes below are the ones under test.
-- (expected/timeuuid_families_1.out: 19 unique-ifies the inner side by
-- sorting where 15 to 18 hash it, under the same settings.)
CREATE TABLE ids (u uuid);
INSERT INTO ids SELECT id::uuid FROM events WHERE n % 5 = 0;
INSERT INTO ids SELECT timeuuid_min(timestamptz '2025-01-01' + g * interval '1 hour')::uuid FROM generate_series(1, 1500) g;
CREATE INDEX ON ids (u);
ANALYZE events, ids;
-- Among the ids, the byte order and the time order differ.
SELECT count(*) FILTER (WHERE (a.u < b.u) <> (a.u::timeuuid < b.u::timeuuid)) > 0 AS byte_order_is_not_time_order
  FROM ids a, ids b WHERE a.u::text < '2' AND b.u::text < '2';

-- 2. The (uuid, uuid) members agree with the timeuuid comparison on every
-- pair of a sample of all versions.
SELECT bool_and((a ~<~ b) = (a::timeuuid < b::timeuuid) AND (a ~<=~ b) = (a::timeuuid <= b::timeuuid)
            AND (a ~=~ b) = (a::timeuuid = b::timeuuid) AND (a ~<>~ b) = (a::timeuuid <> b::timeuuid)
            AND (a ~>=~ b) = (a::timeuuid >= b::timeuuid) AND (a ~>~ b) = (a::timeuuid > b::timeuuid)
            AND (a ~=~ b) = (a = b)) AS same_as_timeuuid
  FROM (SELECT id::uuid AS a FROM events WHERE n % 50 = 0) x, (SELECT id::uuid AS b FROM events WHERE n % 45 = 0) y;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid ~<~ timeuuid_min('2024-01-01')::uuid; \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_min('2024-01-01')::uuid ~=~ 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid; \echo :LAST_ERROR_SQLSTATE

-- 3. A uuid[] parameter, as drivers send many ids at once, on the indexed
-- timeuuid column: index, index-only and bitmap scans (the btree sorts the
-- array with the (uuid, uuid) comparison), in time order without a Sort
-- (version 1 values, whose bytes start with the time's low bits, among v7).
SELECT array_agg(u ORDER BY md5(u::text))::text AS many
  FROM (SELECT u FROM ids ORDER BY md5(u::text) LIMIT 40) s \gset
PREPARE by_ids(uuid[]) AS SELECT id, n FROM events WHERE id = ANY($1) ORDER BY id;
SET enable_seqscan = off; SET enable_bitmapscan = off; SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE by_ids(:'many');
EXECUTE by_ids(:'many');
RESET enable_seqscan; RESET enable_bitmapscan; RESET plan_cache_mode;

-- plan_and_rows(q, knobs): q run with the enable_* and memory settings in
-- knobs ('name=value ...'): the plan nodes that show which shape ran
-- (scans, joins, aggregation, subplans, hashed or not, and where the uuid
-- side is sorted or matched by a (uuid, uuid) member), the row count and a
-- digest of the rows (in q's order if it has one).  Every query below is run
-- this way under each plan shape that applies to it; the digests must agree.
CREATE FUNCTION pg_temp.plan_and_rows(q text, knobs text, OUT plan text, OUT rows bigint, OUT digest text)
LANGUAGE plpgsql AS $$
DECLARE
    knob text;
    line text;
    nodes text[] := '{}';
BEGIN
    FOREACH knob IN ARRAY string_to_array(knobs, ' ') LOOP
        PERFORM set_config(split_part(knob, '=', 1), split_part(knob, '=', 2), true);
    END LOOP;
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q LOOP
        nodes := nodes || ARRAY(SELECT m[1] FROM regexp_matches(line,
            '^ *(?:->  )?(Index Only Scan|Index Scan|Bitmap Heap Scan|Seq Scan|Nested Loop(?: \w+)?(?: Join)?|Hash(?: Right)?(?: \w+)? Join|Merge(?: \w+)? Join|HashAggregate|Unique|SubPlan)') m
            UNION ALL SELECT m[1] FROM regexp_matches(line, '(USING ~<~|~=~|hashed SubPlan)', 'g') m);
    END LOOP;
    -- 18 may build the hash on the outer side ("Hash Right Semi Join"): the
    -- same shape for this comparison.
    nodes := ARRAY(SELECT regexp_replace(x, '^Hash Right (Semi|Anti) Join$', 'Hash \1 Join')
                     FROM unnest(nodes) WITH ORDINALITY u(x, i) ORDER BY i);
    IF 'hashed SubPlan' = ANY (nodes) THEN
        nodes := array_replace(array_remove(nodes, 'hashed SubPlan'), 'SubPlan', 'hashed SubPlan');
    END IF;
    plan := array_to_string(nodes, ', ');
    IF q ~ 'ORDER BY' THEN
        EXECUTE format('SELECT count(*), md5(string_agg(r::text, %L)) FROM (%s) r', E'\n', q) INTO rows, digest;
    ELSE
        EXECUTE format('SELECT count(*), md5(string_agg(r::text, %L ORDER BY r::text)) FROM (%s) r', E'\n', q) INTO rows, digest;
    END IF;
    FOREACH knob IN ARRAY string_to_array(knobs, ' ') LOOP
        EXECUTE format('RESET %I', split_part(knob, '=', 1));
    END LOOP;
END $$;

CREATE TABLE shapes (shape text PRIMARY KEY, knobs text NOT NULL);
INSERT INTO shapes VALUES
  ('index',          'enable_seqscan=off enable_bitmapscan=off enable_indexonlyscan=off'),
  ('index only',     'enable_seqscan=off enable_bitmapscan=off'),
  ('bitmap',         'enable_seqscan=off enable_indexscan=off enable_indexonlyscan=off'),
  ('sequential',     'enable_indexscan=off enable_indexonlyscan=off enable_bitmapscan=off'),
  ('hash join',      'enable_mergejoin=off enable_nestloop=off'),
  ('merge join',     'enable_hashjoin=off enable_nestloop=off'),
  ('nested loop',    'enable_hashjoin=off enable_mergejoin=off enable_material=off'),
  ('nested loop semi join', 'enable_hashjoin=off enable_mergejoin=off enable_sort=off enable_hashagg=off'),
  ('DISTINCT inner, hashed', 'enable_hashjoin=off enable_mergejoin=off enable_material=off'),
  ('DISTINCT inner, sorted', 'enable_hashjoin=off enable_mergejoin=off enable_hashagg=off'),
  ('hash aggregate', 'enable_sort=off'),
  ('sort',           'enable_hashagg=off'),
  ('hashed subplan', ''),
  ('plain subplan',  'work_mem=64 hash_mem_multiplier=1');

CREATE TABLE queries (name text PRIMARY KEY, q text NOT NULL, shapes text[] NOT NULL);
INSERT INTO queries VALUES
  ('= ANY (uuid[])', format('SELECT id FROM events WHERE id = ANY (%L::uuid[]) ORDER BY id', :'many'),
   '{index,"index only",bitmap,sequential}'),
  ('IN (uuid, ...)', 'SELECT id FROM events WHERE id IN (''' || timeuuid_min('2024-01-01 00:03:42')::uuid || '''::uuid, '''
                     || pg_temp.v1_at('2024-01-01 00:03:05', 5)::uuid || '''::uuid, '''
                     || timeuuid_v1_to_v6(pg_temp.v1_at('2024-01-01 00:02:28', 4)::uuid)::uuid || '''::uuid) ORDER BY id',
   '{index,"index only",bitmap,sequential}'),
  ('NOT IN (SELECT uuid)', 'SELECT id, n FROM events WHERE id NOT IN (SELECT u FROM ids) ORDER BY id',
   '{"hashed subplan","plain subplan"}'),
  ('IN (SELECT uuid)', 'SELECT id, n FROM events WHERE id IN (SELECT u FROM ids) ORDER BY id',
   '{"hash join","merge join","nested loop semi join","DISTINCT inner, hashed","DISTINCT inner, sorted"}'),
  ('IN (SELECT uuid) OR', 'SELECT id, n FROM events WHERE id IN (SELECT u FROM ids) OR n < 3 ORDER BY id',
   '{"hashed subplan","plain subplan"}'),
  ('IN (SELECT uuid) in the select list', 'SELECT id, id IN (SELECT u FROM ids) AS listed FROM events ORDER BY id',
   '{"hashed subplan","plain subplan"}'),
  ('JOIN ON timeuuid = uuid', 'SELECT e.id, e.n, f.u FROM events e JOIN ids f ON e.id = f.u ORDER BY e.id',
   '{"hash join","merge join","nested loop"}'),
  ('JOIN, two uuid sides', 'SELECT e.n FROM ids a JOIN events e ON a.u = e.id JOIN ids b ON b.u = e.id ORDER BY e.n',
   '{"hash join","merge join","nested loop"}'),
  ('DISTINCT over a join', 'SELECT DISTINCT f.u FROM events e JOIN ids f ON f.u = e.id',
   '{"hash aggregate",sort}');

-- Each query under each shape: the plan that ran, and the rows.
SELECT q.name, s.shape, r.plan, r.rows
  FROM queries q CROSS JOIN LATERAL unnest(q.shapes) WITH ORDINALITY AS x(shape, i)
  JOIN shapes s USING (shape), LATERAL pg_temp.plan_and_rows(q.q, s.knobs) r
 ORDER BY q.name, x.i;
-- The same rows whichever plan ran.
SELECT q.name, count(DISTINCT r.digest) = 1 AS same_rows_under_every_plan
  FROM queries q CROSS JOIN LATERAL unnest(q.shapes) AS x(shape)
  JOIN shapes s USING (shape), LATERAL pg_temp.plan_and_rows(q.q, s.knobs) r
 GROUP BY q.name ORDER BY q.name;
-- And the rows the timeuuid comparison gives (the uuids cast first).
SELECT (SELECT count(*) FROM events WHERE id = ANY (:'many'::uuid[]::timeuuid[])) AS any_rows,
       (SELECT count(*) FROM events WHERE id NOT IN (SELECT u::timeuuid FROM ids)) AS not_in_rows,
       (SELECT count(*) FROM events WHERE id IN (SELECT u::timeuuid FROM ids)) AS in_rows;

-- The merge join sorts the uuid side in time order, with the (uuid, uuid)
-- ordering operator.
SET enable_hashjoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT e.id, f.u FROM events e JOIN ids f ON e.id = f.u;
RESET enable_hashjoin; RESET enable_nestloop;

-- 4. A uuid that no timeuuid can be, inside the array: the comparison that
-- meets it raises 22023, as a single comparison does, whatever the plan.
-- An index scan sorts the array first, so it meets it before reading a row;
-- a sequential scan meets it at the first row no earlier element matches.
-- (A plan that never compares it, on an empty table say, raises nothing.)
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM events WHERE id = ANY (ARRAY[timeuuid_min('2024-01-01 00:03:05')::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']); \echo :LAST_ERROR_SQLSTATE
RESET enable_bitmapscan;
SET enable_indexscan = off; SET enable_indexonlyscan = off;
SELECT count(*) FROM events WHERE id = ANY (ARRAY[timeuuid_min('2024-01-01 00:03:05')::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']); \echo :LAST_ERROR_SQLSTATE
RESET enable_seqscan;
SELECT count(*) FROM events WHERE id = ANY (ARRAY[timeuuid_min('2024-01-01 00:03:05')::uuid, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']); \echo :LAST_ERROR_SQLSTATE
RESET enable_indexscan; RESET enable_indexonlyscan;
-- In a subquery's rows: the hash of the subquery's side, the sort of the
-- uuid side and the comparison all check it.
INSERT INTO ids VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
SELECT count(*) FROM events WHERE id NOT IN (SELECT u FROM ids); \echo :LAST_ERROR_SQLSTATE
SET enable_hashjoin = off; SET enable_nestloop = off;
SELECT count(*) FROM events WHERE id IN (SELECT u FROM ids); \echo :LAST_ERROR_SQLSTATE
RESET enable_hashjoin; RESET enable_nestloop;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_sort = off;
SELECT count(*) FROM events WHERE id IN (SELECT u FROM ids); \echo :LAST_ERROR_SQLSTATE
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_sort;

RESET search_path;
DROP SCHEMA families CASCADE;
