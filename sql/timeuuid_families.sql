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
-- hold the (uuid, uuid) ones that btree and hash look up for the uuid side
-- (in btree, as the operator class uuid_time_ops).
SELECT c.opcname, a.amname, amvalidate(c.oid) AS valid
  FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
  JOIN pg_depend d ON d.classid = 'pg_opclass'::regclass AND d.objid = c.oid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')
 ORDER BY 1;

-- The (uuid, uuid) members compare two uuids as timeuuids: in time order,
-- as the cross-type operators do, any uuid (one that no timeuuid can be has
-- a rank of its own).  The ordering ones have names of their own (uuid's
-- own < ... keep uuid's byte order, in core's family uuid_ops); equality is
-- byte equality in every order: uuid's own = in btree, ~=~ in hash.
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
-- uuid values from elsewhere: every fifth id of events, 1500 time uuids
-- that are not there (too many to hash in 64 kB), and 40 uuids that no
-- timeuuid can be (versions 2, 3, 4, 5 and 8, other variants).  The column may be
-- NULL, as far as the planner knows: 19 turns NOT IN over NOT NULL columns
-- into an anti join, and the subplan shapes below are the ones under test.
-- (expected/timeuuid_families_1.out: 19 unique-ifies the inner side by
-- sorting where 15 to 18 hash it, under the same settings.)
CREATE TABLE ids (u uuid);
INSERT INTO ids SELECT id::uuid FROM events WHERE n % 5 = 0;
INSERT INTO ids SELECT timeuuid_min(timestamptz '2025-01-01' + g * interval '1 hour')::uuid FROM generate_series(1, 1500) g;
INSERT INTO ids
SELECT overlay(overlay(md5('other:' || g) PLACING (ARRAY['2','3','4','5','8'])[g % 5 + 1] FROM 13)
               PLACING (ARRAY['0','4','8','b','c','f'])[g % 6 + 1] FROM 17)::uuid
  FROM generate_series(1, 40) g;
CREATE INDEX ON ids (u);
ANALYZE events, ids;
-- Among the time-based ids, the byte order and the time order differ.
SELECT count(*) FILTER (WHERE (a.u < b.u) <> (a.u::timeuuid < b.u::timeuuid)) > 0 AS byte_order_is_not_time_order
  FROM ids a, ids b WHERE a.u::text < '2' AND b.u::text < '2'
   AND uuid_extract_version(a.u) IN (1, 6, 7) AND uuid_extract_version(b.u) IN (1, 6, 7);

-- 2. The (uuid, uuid) members agree with the timeuuid comparison on every
-- pair of a sample of all versions.
SELECT bool_and((a ~<~ b) = (a::timeuuid < b::timeuuid) AND (a ~<=~ b) = (a::timeuuid <= b::timeuuid)
            AND (a ~=~ b) = (a::timeuuid = b::timeuuid) AND (a ~<>~ b) = (a::timeuuid <> b::timeuuid)
            AND (a ~>=~ b) = (a::timeuuid >= b::timeuuid) AND (a ~>~ b) = (a::timeuuid > b::timeuuid)
            AND (a ~=~ b) = (a = b)) AS same_as_timeuuid
  FROM (SELECT id::uuid AS a FROM events WHERE n % 50 = 0) x, (SELECT id::uuid AS b FROM events WHERE n % 45 = 0) y;
-- A uuid that no timeuuid can be sorts after every time-based value (and
-- before the max UUID), by its bytes; it never raises.
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid ~<~ timeuuid_min('2024-01-01')::uuid AS v4_first,
       timeuuid_min('2024-01-01')::uuid ~=~ 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS equal,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid ~<~ 'ffffffff-ffff-ffff-ffff-ffffffffffff' AS v4_before_max;

-- One order for every member, over crafted values of every kind: nil, max,
-- v1, v6, v7 and v13 of the same instants (whose bytes sort differently),
-- v7 values whose rand_a puts them around v1/v6 values of their
-- millisecond, and uuids no timeuuid can be.  Each value's rank in the
-- order of ~<~ must be what every operator of the family says of every
-- pair, whichever of the two types each side has: so the order is total
-- and transitive, and the cross-type operators agree with both single-type
-- orders, as btree requires of one family.
CREATE TABLE crafted (u uuid PRIMARY KEY, timeuuid_ok boolean NOT NULL);
INSERT INTO crafted
SELECT u, coalesce(uuid_extract_version(u) IN (1, 6, 7, 13), false) OR u IN ('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff')
  FROM (SELECT DISTINCT u FROM (
        SELECT unnest(ARRAY[v1, timeuuid_v1_to_v6(v1)::uuid, timeuuid_v6_to_comb(timeuuid_v1_to_v6(v1))::uuid,
                            timeuuid_min(t)::uuid, timeuuid_max(t)::uuid,
                            overlay(timeuuid_min(t)::text PLACING lpad(to_hex(28672 + r), 4, '0') FROM 15)::uuid]) AS u
          FROM generate_series(0, 9) i, unnest(ARRAY[0, 1, 2, 2047, 2048, 4094, 4095]) r,
               LATERAL (SELECT timestamptz '2024-01-01' + i * interval '0.5 ms' AS t) x,
               LATERAL (SELECT pg_temp.v1_at(t, i)::uuid AS v1) y
        UNION ALL
        SELECT unnest(ARRAY['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
                            'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '00000000-0000-4000-8000-000000000000',
                            '5df41881-3aed-3515-88a7-2f4a814cf09e', '017f22e2-79b0-7cc3-c8c4-dc0c0c07398f',
                            '017f22e2-79b0-7cc3-18c4-dc0c0c07398f', 'ffffffff-ffff-7fff-bfff-ffffffffffff',
                            '00000000-0000-0000-0000-000000000001', 'fffffffe-ffff-ffff-ffff-ffffffffffff',
                            '11111111-1111-8111-8111-111111111111', '01000000-0000-2000-8000-000000000000']::uuid[])) s) d;
SELECT count(*) AS crafted, count(*) FILTER (WHERE NOT timeuuid_ok) AS not_timeuuids FROM crafted;
CREATE TABLE ranked AS
SELECT u, timeuuid_ok, CASE WHEN timeuuid_ok THEN u::text END::timeuuid AS t,
       row_number() OVER (ORDER BY u USING ~<~) AS r
  FROM crafted;
SELECT bool_and((a.u ~<~ b.u) = (a.r < b.r) AND (a.u ~<=~ b.u) = (a.r <= b.r) AND (a.u ~=~ b.u) = (a.r = b.r)
            AND (a.u ~<>~ b.u) = (a.r <> b.r) AND (a.u ~>=~ b.u) = (a.r >= b.r) AND (a.u ~>~ b.u) = (a.r > b.r)
            AND sign(uuid_time_cmp(a.u, b.u)) = sign(a.r - b.r) AND (a.u = b.u) = (a.r = b.r)
            AND (timeuuid_uuid_hash(a.u) = timeuuid_uuid_hash(b.u) OR a.r <> b.r)) AS uuid_uuid,
       bool_and((a.t < b.u) = (a.r < b.r) AND (a.t <= b.u) = (a.r <= b.r) AND (a.t = b.u) = (a.r = b.r)
            AND (a.t <> b.u) = (a.r <> b.r) AND (a.t >= b.u) = (a.r >= b.r) AND (a.t > b.u) = (a.r > b.r)
            AND sign(timeuuid_uuid_cmp(a.t, b.u)) = sign(a.r - b.r)) FILTER (WHERE a.timeuuid_ok) AS timeuuid_uuid,
       bool_and((a.u < b.t) = (a.r < b.r) AND (a.u <= b.t) = (a.r <= b.r) AND (a.u = b.t) = (a.r = b.r)
            AND (a.u <> b.t) = (a.r <> b.r) AND (a.u >= b.t) = (a.r >= b.r) AND (a.u > b.t) = (a.r > b.r)
            AND sign(uuid_timeuuid_cmp(a.u, b.t)) = sign(a.r - b.r)) FILTER (WHERE b.timeuuid_ok) AS uuid_timeuuid,
       bool_and((a.t < b.t) = (a.r < b.r) AND (a.t = b.t) = (a.r = b.r) AND (a.t > b.t) = (a.r > b.r)
            AND sign(timeuuid_cmp(a.t, b.t)) = sign(a.r - b.r)) FILTER (WHERE a.timeuuid_ok AND b.timeuuid_ok) AS timeuuid_timeuuid,
       count(*) AS pairs
  FROM ranked a, ranked b;
-- Where the uuids that no timeuuid can be stand: between the last
-- time-based value and max, in byte order.
SELECT r, u FROM ranked WHERE NOT timeuuid_ok OR r IN (1, (SELECT max(r) FROM ranked WHERE timeuuid_ok AND r < (SELECT max(r) FROM ranked))) OR r = (SELECT max(r) FROM ranked) ORDER BY r;

-- 3. A uuid[] parameter, as drivers send many ids at once, on the indexed
-- timeuuid column: index, index-only and bitmap scans (the btree sorts the
-- array with the (uuid, uuid) comparison), in time order without a Sort
-- (version 1 values, whose bytes start with the time's low bits, among v7).
SELECT array_agg(u ORDER BY md5(u::text))::text AS many
  FROM ((SELECT u FROM ids WHERE uuid_extract_version(u) IN (1, 6, 7) ORDER BY md5(u::text) LIMIT 40)
        UNION ALL SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11') s \gset
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
-- And the rows uuid's own equality gives (the timeuuids cast to uuid).
SELECT (SELECT count(*) FROM events WHERE id::uuid = ANY (:'many'::uuid[])) AS any_rows,
       (SELECT count(*) FROM events WHERE id::uuid NOT IN (SELECT u FROM ids)) AS not_in_rows,
       (SELECT count(*) FROM events WHERE id::uuid IN (SELECT u FROM ids)) AS in_rows;

-- The merge join sorts the uuid side in time order, with the (uuid, uuid)
-- ordering operator.
SET enable_hashjoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT e.id, f.u FROM events e JOIN ids f ON e.id = f.u;
RESET enable_hashjoin; RESET enable_nestloop;

-- 4. Nothing above raised: the uuids that no timeuuid can be, in ids and
-- in the array, match nothing under every plan, as uuid's equality says.
-- A sequential scan, an index scan (which sorts the array first) and a
-- bitmap scan of the array alone, and the subquery shapes:
SELECT count(*) AS v4_rows FROM events WHERE id = ANY (ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]);
SELECT q.name, count(DISTINCT r.digest) = 1 AS same_rows_under_every_plan
  FROM (VALUES ('= ANY, a v4 first', format('SELECT id FROM events WHERE id = ANY (%L::uuid[]) ORDER BY id',
                  (SELECT array_prepend('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, :'many'::uuid[])))),
               ('NOT IN, v4 only', 'SELECT id FROM events WHERE id NOT IN (SELECT u FROM ids WHERE uuid_extract_version(u) = 4) ORDER BY id'))
       q(name, q)
  CROSS JOIN shapes s, LATERAL pg_temp.plan_and_rows(q.q, s.knobs) r
 WHERE s.shape IN ('index', 'index only', 'bitmap', 'sequential', 'hashed subplan', 'plain subplan')
 GROUP BY q.name ORDER BY q.name;

RESET search_path;
DROP SCHEMA families CASCADE;
