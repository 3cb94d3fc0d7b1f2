-- timeuuid beside uuid: what drivers send, and what SQL mixing the two types does.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE: the
-- output shows the error as a client sees it, then its SQLSTATE.

CREATE TABLE events (id timeuuid PRIMARY KEY, n int);
INSERT INTO events
SELECT timeuuid_min(timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second'), g
  FROM generate_series(1, 1000) g;
ANALYZE events;

-- 1. Drivers bind UUID parameters as uuid (pgjdbc setObject(UUID), psycopg2
-- uuid.UUID, node-postgres $1::uuid).  Every comparison takes them, in both
-- orders, in time order: the same rows as comparing with the timeuuid.
PREPARE by_id(uuid) AS SELECT n FROM events WHERE id = $1;
EXECUTE by_id(timeuuid_min('2024-01-01 00:00:07+00')::uuid);
PREPARE after(uuid) AS SELECT count(*) FROM events WHERE id > $1;
EXECUTE after(timeuuid_min('2024-01-01 00:16:00+00')::uuid);
SELECT count(*) FROM events WHERE timeuuid_min('2024-01-01 00:16:00+00')::uuid < id;
SELECT bool_and((e.id = u) = (e.id = u::timeuuid) AND (e.id < u) = (e.id < u::timeuuid)
            AND (u <= e.id) = (u::timeuuid <= e.id) AND (u <> e.id) = (u::timeuuid <> e.id)
            AND (e.id >= u) = (e.id >= u::timeuuid) AND (u > e.id) = (u::timeuuid > e.id))
       AS same_as_timeuuid
  FROM events e,
       (SELECT id::uuid AS u FROM events WHERE n % 97 = 0) p;

-- The primary key's index serves them (the operators are members of
-- timeuuid's btree family), as it serves timeuuid comparisons.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) EXECUTE by_id('018cc25a-5c07-7000-8000-000000000000');
EXPLAIN (COSTS OFF) EXECUTE after('018cc25a-5c07-7000-8000-000000000000');
RESET enable_seqscan;

-- Time order, not uuid's byte order: a version 1 uuid sorts by its time.
SELECT timeuuid_min('2024-01-01 00:00:00+00') < 'c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid AS v7_2024_before_v1_2022,
       '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid < timeuuid_min('2024-01-01 00:00:00+00') AS v7_2022_before_v7_2024;

-- 2. A uuid that no timeuuid can be (a version 4) compares too: it has a
-- rank of its own, after every time-based value and before the max UUID,
-- so it equals no timeuuid and nothing raises, whatever the plan: nested
-- loop, index scan, hash join, merge join (which sorts the uuid side as
-- timeuuids, with the families' (uuid, uuid) members:
-- sql/timeuuid_families.sql).  Only a cast makes it a timeuuid, and the
-- cast refuses it (section 3).
SELECT count(*) FROM events WHERE id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid < timeuuid_min(now()) AS before,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid > timeuuid_min(now()) AS after,
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid < 'ffffffff-ffff-ffff-ffff-ffffffffffff'::timeuuid AS before_max;
CREATE TABLE foreign_ids (u uuid);
INSERT INTO foreign_ids VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), ((SELECT id FROM events WHERE n = 7));
ANALYZE foreign_ids;
SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT count(*) AS nested_loop FROM events e JOIN foreign_ids f ON e.id = f.u;
SET enable_seqscan = off;
SELECT count(*) AS index_scan FROM events e JOIN foreign_ids f ON e.id = f.u;
RESET enable_seqscan;
SET enable_nestloop = off; SET enable_hashjoin = on;
SELECT count(*) AS hash_join FROM events e JOIN foreign_ids f ON e.id = f.u;
SET enable_hashjoin = off; SET enable_mergejoin = on;
SELECT count(*) AS merge_join FROM events e JOIN foreign_ids f ON e.id = f.u;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;

-- The same join with time-based uuids works under every plan and agrees.
TRUNCATE foreign_ids;
INSERT INTO foreign_ids SELECT id::uuid FROM events WHERE n % 10 = 0;
ANALYZE foreign_ids;
SET enable_hashjoin = off; SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events e JOIN foreign_ids f ON e.id = f.u;
SELECT count(*) AS nestloop FROM events e JOIN foreign_ids f ON e.id = f.u;
SET enable_nestloop = off; SET enable_hashjoin = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events e JOIN foreign_ids f ON f.u = e.id;
SELECT count(*) AS hash FROM events e JOIN foreign_ids f ON f.u = e.id;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_nestloop;
-- A range between two uuid parameters, through the index.
SET enable_seqscan = off;
PREPARE between_ids(uuid, uuid) AS SELECT count(*) FROM events WHERE id >= $1 AND id < $2;
EXPLAIN (COSTS OFF) EXECUTE between_ids('018cc25a-5c07-7000-8000-000000000000', '018cc25a-5c08-7000-8000-000000000000');
EXECUTE between_ids(timeuuid_min('2024-01-01 00:01:00+00'), timeuuid_min('2024-01-01 00:02:00+00'));
RESET enable_seqscan;

-- 3. SQL that needs one type for both: JOIN ... USING, NATURAL JOIN, UNION,
-- CASE, COALESCE give uuid (every timeuuid is a uuid; the cast is implicit).
CREATE TABLE by_uuid (id uuid, note text);
INSERT INTO by_uuid SELECT id::uuid, 'n' || n FROM events WHERE n <= 3;
SELECT pg_typeof(id), count(*) FROM events JOIN by_uuid USING (id) GROUP BY 1;
SELECT pg_typeof(id), count(*) FROM (SELECT id FROM events) a NATURAL JOIN (SELECT id FROM by_uuid) b GROUP BY 1;
SELECT DISTINCT pg_typeof(x) FROM (SELECT id FROM events UNION SELECT id FROM by_uuid) s(x);
SELECT pg_typeof(CASE WHEN true THEN timeuuid_next() ELSE gen_random_uuid() END),
       pg_typeof(COALESCE(timeuuid_next(), gen_random_uuid()));
-- Writing a uuid into a timeuuid column checks it; the other way needs nothing.
INSERT INTO events (id, n) SELECT id, 0 FROM by_uuid LIMIT 0;
INSERT INTO events (id, n) VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 0); \echo :LAST_ERROR_SQLSTATE
INSERT INTO by_uuid (id) SELECT id FROM events LIMIT 1;
-- A uuid column can take the server-wide increasing stream directly.
CREATE TABLE uuid_keyed (id uuid PRIMARY KEY DEFAULT timeuuid_next(), v int);
INSERT INTO uuid_keyed (v) SELECT g FROM generate_series(1, 100) g;
SELECT bool_and(a < b) AS increasing FROM (
  SELECT id AS a, lead(id) OVER (ORDER BY v) AS b FROM uuid_keyed) s WHERE b IS NOT NULL;

-- 4. PostgreSQL 17's names take literals and timeuuids alike, as in core
-- (queries copied from PostgreSQL's documentation behave the same).
-- (Which versions uuid_extract_timestamp() reads is core's choice and
-- differs by server: a version 1 uuid has its timestamp on all; versions 6
-- and 7 read the same everywhere through timeuuid_timestamp().)
SELECT uuid_extract_version('11111111-1111-5111-8111-111111111111');
SELECT uuid_extract_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846');
SELECT uuid_extract_version(id), timeuuid_timestamp(id) FROM events WHERE n = 1;
SELECT uuid_extract_version(v), timeuuid_timestamp(v)
  FROM (VALUES ('1ec9414c-232a-6b00-b3c8-9f6bdeced846'::timeuuid)) t(v);

-- 5. The families are what the planner needs: btree and hash classes of
-- timeuuid with the cross-type members.
SELECT f.opfname, a.amname, count(*) FILTER (WHERE o.amoplefttype <> o.amoprighttype) AS cross_type_operators
  FROM pg_opfamily f JOIN pg_am a ON a.oid = f.opfmethod JOIN pg_amop o ON o.amopfamily = f.oid
 WHERE f.opfname IN ('timeuuid_ops', 'timeuuid_hash_ops')
 GROUP BY 1, 2 ORDER BY 1;

-- 6. The PostgreSQL 17 and 18 names.  Where the server has core's function
-- (pg_catalog, searched first), the name here calls core's; where it lacks
-- it, the name is this library's.  Either way a name exists, so a dump made
-- on an older server (DEFAULT public.uuidv7()) restores on a newer one.
SELECT format('%s(%s)', p.proname, pg_get_function_identity_arguments(p.oid)) AS function,
       (l.lanname = 'sql') = (pg_catalog.to_regprocedure(format('pg_catalog.%s(%s)', p.proname,
                                pg_get_function_identity_arguments(p.oid))) IS NOT NULL)
         AS calls_core_where_core_has_it
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.proname IN ('uuid_extract_timestamp', 'uuid_extract_version', 'uuidv7')
   AND p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'id_gen')
 ORDER BY 1;
SELECT uuid_extract_version(uuidv4()) AS v4, uuid_extract_version(uuidv7()) AS v7,
       uuid_extract_version(uuidv7('-1 day')) AS v7_shifted;
-- The server-wide stream typed uuid has a name no PostgreSQL version uses.
SELECT pg_typeof(uuidv7_next()), uuid_extract_version(uuidv7_next()),
       uuidv7_next() < uuidv7_next() AS increasing,
       timeuuid_next() < uuidv7_next() AS one_stream_with_timeuuid_next;
