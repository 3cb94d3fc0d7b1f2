-- issue 11, part 1: COMB UUIDs (version 13) in timeuuid, their conversions,
-- an in-place migration of a column of them, and SQL Server byte order both ways.
-- Random output is checked with true/false assertions; a statement expected
-- to fail prints its SQLSTATE after the error.
SET timezone = 'UTC';

-- 1. The COMB layout: v6's, with version 13.  The value of the issue is
-- accepted and reads as the v6 time it carries (2012-02-28 20:54:52.253862).
SELECT '1e1624e7-5e1f-d27f-a11d-ed65de8970f6'::timeuuid AS comb,
       uuid_extract_version('1e1624e7-5e1f-d27f-a11d-ed65de8970f6'::timeuuid) AS version,
       timeuuid_timestamp('1e1624e7-5e1f-d27f-a11d-ed65de8970f6') AS ts;
-- As uuid, version 13 has no timestamp (core's rule: versions 1 and 7 only).
SELECT uuid_extract_version('1e1624e7-5e1f-d27f-a11d-ed65de8970f6'::uuid) AS version,
       uuid_extract_timestamp('1e1624e7-5e1f-d27f-a11d-ed65de8970f6'::uuid) AS ts;
-- The cast from uuid accepts it too.
SELECT '1e1624e7-5e1f-d27f-a11d-ed65de8970f6'::uuid::timeuuid AS cast_ok;
-- Its neighbours 12 and 14 are still refused; so is a version 13 of another variant.
SELECT '1e1624e7-5e1f-c27f-a11d-ed65de8970f6'::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '1e1624e7-5e1f-e27f-a11d-ed65de8970f6'::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '1e1624e7-5e1f-d27f-c11d-ed65de8970f6'::timeuuid; \echo :LAST_ERROR_SQLSTATE

-- 2. Order: one time line for every version.  At the same 100-ns tick
-- v13 < v1 < v6 (v13 took the free rank; the order of the versions accepted
-- before did not change); across ticks, time decides.
CREATE TEMP TABLE ord (label text, v timeuuid);
INSERT INTO ord VALUES
  ('v7 2012-02-28 .254', timeuuid_min('2012-02-28 20:54:52.254+00')),
  ('v6 same tick',      '1e1624e7-5e1f-627f-a11d-ed65de8970f6'),
  ('v1 same tick',      '75e1f27f-624e-11e1-a11d-ed65de8970f6'),
  ('comb',              '1e1624e7-5e1f-d27f-a11d-ed65de8970f6'),
  ('comb next tick',    '1e1624e7-5e1f-d280-8000-000000000000'),
  ('comb a day before', timeuuid_v6_to_comb(timeuuid_v1_to_v6('75e1f27f-6182-11e1-8000-000000000000'))),
  ('v7 2012-02-28 .253', timeuuid_min('2012-02-28 20:54:52.253+00'));
SELECT label, v, timeuuid_timestamp(v) FROM ord ORDER BY v;
SELECT bool_and((a.v < b.v) = (timeuuid_cmp(a.v, b.v) < 0)
            AND (a.v = b.v) = (a.v::uuid = b.v::uuid)
            AND timeuuid_cmp(a.v, b.v) = -timeuuid_cmp(b.v, a.v)) AS consistent
  FROM ord a, ord b;
-- A COMB lies between the bounds of its millisecond.
SELECT v BETWEEN timeuuid_min(timeuuid_timestamp(v)) AND timeuuid_max(timeuuid_timestamp(v)) AS bracketed
  FROM ord WHERE label = 'comb';

-- 3. Conversions to standard v6 and back: only the version nibble changes.
SELECT timeuuid_comb_to_v6('1e1624e7-5e1f-d27f-a11d-ed65de8970f6') AS v6,
       timeuuid_v6_to_comb('1e1624e7-5e1f-627f-a11d-ed65de8970f6') AS comb;
SELECT bool_and(timeuuid_v6_to_comb(timeuuid_comb_to_v6(c::uuid)) = c
            AND timeuuid_timestamp(timeuuid_comb_to_v6(c::uuid)) = timeuuid_timestamp(c)) AS round_trip
  FROM (SELECT timeuuid_v6_to_comb(timeuuid_v6()) AS c FROM generate_series(1, 1000)) s;
SELECT timeuuid_comb_to_v6('1e1624e7-5e1f-627f-a11d-ed65de8970f6'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_v6_to_comb('1e1624e7-5e1f-d27f-a11d-ed65de8970f6'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_comb_to_v6('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_comb_to_v6(NULL), timeuuid_v6_to_comb(NULL);

-- 4. In-place migration of a uuid column full of COMBs, inserted out of
-- order, with a primary key: ALTER COLUMN ... TYPE timeuuid checks every
-- row, rebuilds the index in time order, and keeps the values.
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE TEMP TABLE app_order (id uuid PRIMARY KEY, made timestamptz, n int);
INSERT INTO app_order
SELECT c::uuid, timeuuid_timestamp(c), n
  FROM (SELECT n, timeuuid_v6_to_comb(timeuuid_v1_to_v6(
                  timeuuid_v6_to_v1(timeuuid_v6())::uuid)) AS c
          FROM generate_series(1, 5000) n) s
 ORDER BY random();
INSERT INTO app_order VALUES ('1e1624e7-5e1f-d27f-a11d-ed65de8970f6', '2012-02-28 20:54:52.253862+00', 0);
CREATE TEMP TABLE before_migration AS SELECT id::text AS id_text FROM app_order;
ALTER TABLE app_order ALTER COLUMN id TYPE timeuuid;
SELECT format_type(atttypid, atttypmod) AS column_type
  FROM pg_attribute WHERE attrelid = 'app_order'::regclass AND attname = 'id';
SELECT count(*) AS rows,
       count(*) FILTER (WHERE id::text IN (SELECT id_text FROM before_migration)) AS same_values,
       bool_and(uuid_extract_version(id) = 13) AS all_comb,
       bool_and(timeuuid_timestamp(id) = made) AS timestamps_kept
  FROM app_order;
-- The index is in time order (amcheck verifies every key against the opclass).
SELECT bt_index_check('app_order_pkey', true);
SELECT bool_and(a_made <= b_made) AS index_order_is_time_order
  FROM (SELECT made AS a_made, lead(made) OVER (ORDER BY id) AS b_made FROM app_order) s
 WHERE b_made IS NOT NULL;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM app_order WHERE id >= timeuuid_min('2012-02-28') ORDER BY id LIMIT 1;
SELECT id, made FROM app_order WHERE id >= timeuuid_min('2012-02-28') ORDER BY id LIMIT 1;
RESET enable_seqscan;
-- A non-time-based value in the column stops the migration (22023), nothing changes.
CREATE TEMP TABLE mixed (id uuid);
INSERT INTO mixed VALUES ('1e1624e7-5e1f-d27f-a11d-ed65de8970f6'), ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
ALTER TABLE mixed ALTER COLUMN id TYPE timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT format_type(atttypid, atttypmod) AS still FROM pg_attribute WHERE attrelid = 'mixed'::regclass AND attname = 'id';
-- Or convert to standard v6 on the way, which then also sorts by time as a plain uuid.
CREATE TEMP TABLE app_order2 (id uuid PRIMARY KEY);
INSERT INTO app_order2 SELECT id::uuid FROM app_order;
ALTER TABLE app_order2 ALTER COLUMN id TYPE timeuuid USING timeuuid_comb_to_v6(id);
SELECT bt_index_check('app_order2_pkey', true);
SELECT count(*) AS rows, bool_and(uuid_extract_version(id) = 6) AS all_v6,
       (SELECT array_agg(id::uuid ORDER BY id) FROM app_order2)
         = (SELECT array_agg(id::uuid ORDER BY id::uuid) FROM app_order2) AS uuid_order_is_time_order
  FROM app_order2;

-- 5. SQL Server byte order, both ways.  The RFC 9562 v1 vector as SQL
-- Server prints its NEWSEQUENTIALID() form, from v1, v6 and v13 alike.
SELECT timeuuid_to_sqlserver('c232ab00-9414-11ec-b3c8-9f6bdeced846') AS from_v1,
       timeuuid_to_sqlserver('1ec9414c-232a-6b00-b3c8-9f6bdeced846') AS from_v6,
       timeuuid_to_sqlserver(timeuuid_v6_to_comb('1ec9414c-232a-6b00-b3c8-9f6bdeced846')) AS from_comb;
SELECT timeuuid_from_sqlserver(timeuuid_to_sqlserver('1e1624e7-5e1f-d27f-a11d-ed65de8970f6')) AS back_as_v1;
-- Round trips: from_sqlserver(to_sqlserver(v1)) = v1, to_sqlserver(from_sqlserver(s)) = s.
SELECT bool_and(timeuuid_from_sqlserver(timeuuid_to_sqlserver(v1)) = v1
            AND timeuuid_to_sqlserver(timeuuid_from_sqlserver(timeuuid_to_sqlserver(v1))) = timeuuid_to_sqlserver(v1)
            AND timeuuid_timestamp(timeuuid_from_sqlserver(timeuuid_to_sqlserver(timeuuid_v1_to_v6(v1::uuid)))) = timeuuid_timestamp(v1))
       AS round_trip
  FROM (SELECT timeuuid_v6_to_v1(timeuuid_v6()) AS v1 FROM generate_series(1, 1000)) s;
-- A v7 value, nil and max have no SQL Server form (22023).
SELECT timeuuid_to_sqlserver('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_to_sqlserver('00000000-0000-0000-0000-000000000000'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_to_sqlserver(NULL);

-- 6. Labels.
SELECT p.oid::regprocedure, provolatile, proparallel, proisstrict
  FROM pg_proc p
 WHERE p.oid IN ('timeuuid_comb_to_v6(uuid)'::regprocedure, 'timeuuid_v6_to_comb(timeuuid)'::regprocedure,
                 'timeuuid_to_sqlserver(timeuuid)'::regprocedure)
 ORDER BY p.oid::regprocedure::text;
