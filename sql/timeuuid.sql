-- timeuuid: a UUID type ordered by the time it carries (RFC 9562 v1, v6, v7).
-- Random output is checked with true/false assertions.
-- Each statement expected to fail prints its SQLSTATE after the error.
SET timezone = 'UTC';

-- 1. Text input accepts every form core uuid accepts, and prints canonically.
SELECT v::timeuuid
  FROM (VALUES ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'),
               ('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'),
               ('{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}'),
               ('017f22e279b07cc398c4dc0c0c07398f'),
               ('017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f'),
               ('{017f22e2-79b07cc3-98c4dc0c-0c07398f}')) AS t(v);
-- Every accepted form gives the same value as core uuid's input.
SELECT bool_and(v::timeuuid::uuid = v::uuid) AS same_as_uuid
  FROM (VALUES ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'),
               ('{017F22E279B07CC398C4DC0C0C07398F}'),
               ('017f-22e2-79b0-7cc3-98c4-dc0c-0c07-398f')) AS t(v);

-- 2. Malformed text: the same syntax errors as uuid (22P02).
SELECT ''::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398'::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f0'::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f-'::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '017f2-2e2-79b0-7cc3-98c4-dc0c0c07398f'::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '{017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT ' 017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '017g22e2-79b0-7cc3-98c4-dc0c0c07398f'::timeuuid; \echo :LAST_ERROR_SQLSTATE
-- an injection attempt is just malformed text
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f''; DROP TABLE x; --'::timeuuid; \echo :LAST_ERROR_SQLSTATE

-- 3. Versions: only 1, 6 and 7 of the RFC 9562 variant (22P02, naming the version).
SELECT 'c232ab00-9414-11ec-b3c8-9f6bdeced846'::timeuuid AS v1,
       '1ec9414c-232a-6b00-b3c8-9f6bdeced846'::timeuuid AS v6,
       '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::timeuuid AS v7;
-- version 4
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::timeuuid; \echo :LAST_ERROR_SQLSTATE
-- version 3
SELECT '5df41881-3aed-3515-88a7-2f4a814cf09e'::timeuuid; \echo :LAST_ERROR_SQLSTATE
-- version 8
SELECT '017f22e2-79b0-8cc3-98c4-dc0c0c07398f'::timeuuid; \echo :LAST_ERROR_SQLSTATE
-- NCS variant (0)
SELECT '017f22e2-79b0-7cc3-18c4-dc0c0c07398f'::timeuuid; \echo :LAST_ERROR_SQLSTATE
-- Microsoft variant (110)
SELECT '017f22e2-79b0-7cc3-c8c4-dc0c0c07398f'::timeuuid; \echo :LAST_ERROR_SQLSTATE
-- The nil and max UUIDs are accepted as sentinels: nil sorts first, max last.
SELECT '00000000-0000-0000-0000-000000000000'::timeuuid AS nil,
       'ffffffff-ffff-ffff-ffff-ffffffffffff'::timeuuid AS max;

-- 4. Casts: timeuuid -> uuid is binary and implicit (every timeuuid is a
-- uuid); uuid -> timeuuid validates, on assignment.
SELECT castcontext, castmethod, castsource::regtype, casttarget::regtype
  FROM pg_cast WHERE castsource = 'timeuuid'::regtype OR casttarget = 'timeuuid'::regtype
 ORDER BY 3;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid::timeuuid; \echo :LAST_ERROR_SQLSTATE
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::timeuuid;
CREATE TEMP TABLE cast_u (u uuid, t timeuuid);
INSERT INTO cast_u VALUES ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::timeuuid,
                           '1ec9414c-232a-6b00-b3c8-9f6bdeced846'::uuid);
-- rejected: version 4
INSERT INTO cast_u (t) VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid); \echo :LAST_ERROR_SQLSTATE
UPDATE cast_u SET u = t, t = u RETURNING *;
-- timeuuid compares with uuid directly, in time order (timeuuid_uuid.sql).
SELECT * FROM cast_u WHERE t = u;
SELECT * FROM cast_u WHERE t = u::timeuuid;
-- An existing uuid column converts in place (the assignment cast validates).
CREATE TEMP TABLE legacy (id uuid PRIMARY KEY);
INSERT INTO legacy VALUES ('c232ab00-9414-11ec-b3c8-9f6bdeced846'), ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
ALTER TABLE legacy ALTER COLUMN id TYPE timeuuid;
SELECT id, pg_typeof(id) FROM legacy ORDER BY id;

CREATE TEMP TABLE legacy4 (id uuid);
INSERT INTO legacy4 VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
ALTER TABLE legacy4 ALTER COLUMN id TYPE timeuuid; \echo :LAST_ERROR_SQLSTATE
-- A literal passed to PostgreSQL 17's names is a uuid, as in core.
SELECT uuid_extract_version('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');

-- 5. Binary send/receive is uuid's: the same bytes; receive validates too.
SELECT timeuuid_send('017f22e2-79b0-7cc3-98c4-dc0c0c07398f') =
       uuid_send('017f22e2-79b0-7cc3-98c4-dc0c0c07398f') AS same_wire_format;
-- A binary COPY of uuid values loads into timeuuid; a version 4 is refused (22P03).
\getenv abs_builddir PG_ABS_BUILDDIR
\set bin_ok :abs_builddir '/results/timeuuid_ok.bin'
\set bin_bad :abs_builddir '/results/timeuuid_bad.bin'
COPY (SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid) TO :'bin_ok' (FORMAT binary);
COPY (SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) TO :'bin_bad' (FORMAT binary);
CREATE TEMP TABLE bin_in (t timeuuid);
COPY bin_in FROM :'bin_ok' (FORMAT binary);
COPY bin_in FROM :'bin_bad' (FORMAT binary); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM bin_in;

-- 6. RFC 9562 Appendix A: one instant (2022-02-22 19:22:22 UTC) in v1, v6, v7.
SELECT v, uuid_extract_version(v) AS version, timeuuid_timestamp(v)
  FROM (VALUES ('c232ab00-9414-11ec-b3c8-9f6bdeced846'::timeuuid),
               ('1ec9414c-232a-6b00-b3c8-9f6bdeced846'::timeuuid),
               ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::timeuuid)) AS t(v);

-- 7. Ordering follows time, across versions and across v1's time_low wrap.
CREATE TEMP TABLE ord (label text, v timeuuid);
INSERT INTO ord VALUES
  ('max',              'ffffffff-ffff-ffff-ffff-ffffffffffff'),
  ('v7 2022-02-22 .800','017f22e2-79b0-7cc3-98c4-dc0c0c07398f'),
  ('v6 2022-02-22',    '1ec9414c-232a-6b00-b3c8-9f6bdeced846'),
  ('v1 2022-02-22',    'c232ab00-9414-11ec-b3c8-9f6bdeced846'),
  ('v1 before wrap',   'ffffffff-9413-11ec-8000-000000000000'),
  ('v1 after wrap',    '00000000-9414-11ec-8000-000000000000'),
  ('v7 1970',          '00000000-0000-7000-8000-000000000000'),
  ('v1 1582',          '00000000-0000-1000-8000-000000000000'),
  ('nil',              '00000000-0000-0000-0000-000000000000'),
  ('v7 2024',          '018f0000-0000-7000-8000-000000000000');
SELECT label, v, timeuuid_timestamp(v) FROM ord ORDER BY v;
-- As uuid (byte order), v1's wrap and the versions would interleave wrongly.
SELECT string_agg(label, ' < ' ORDER BY v::uuid) AS uuid_order FROM ord;
SELECT min(v), max(v) FROM ord;
-- Operators agree with each other and with timeuuid_cmp.
SELECT bool_and((a.v < b.v) = (timeuuid_cmp(a.v, b.v) < 0)
            AND (a.v <= b.v) = (timeuuid_cmp(a.v, b.v) <= 0)
            AND (a.v > b.v) = (timeuuid_cmp(a.v, b.v) > 0)
            AND (a.v >= b.v) = (timeuuid_cmp(a.v, b.v) >= 0)
            AND (a.v = b.v) = (timeuuid_cmp(a.v, b.v) = 0)
            AND (a.v <> b.v) = (timeuuid_cmp(a.v, b.v) <> 0)
            AND (a.v = b.v) = (a.v::uuid = b.v::uuid)
            AND timeuuid_cmp(a.v, b.v) = -timeuuid_cmp(b.v, a.v)) AS consistent
  FROM ord a, ord b;

-- 8. timeuuid_next(): version 7, strictly increasing, time close to now.
SELECT uuid_extract_version(timeuuid_next()) AS version;
SELECT abs(extract(epoch FROM timeuuid_timestamp(timeuuid_next()) - clock_timestamp())) < 5 AS near_now;
SELECT bool_and(a < b) AS strictly_increasing, count(*) AS pairs
  FROM (SELECT v AS a, lead(v) OVER (ORDER BY n) AS b
          FROM (SELECT n, timeuuid_next() AS v FROM generate_series(1, 100000) n) s) p
 WHERE b IS NOT NULL;
-- ... and as plain uuids too (byte order), and all distinct.
SELECT bool_and(a < b) AS uuid_increasing
  FROM (SELECT v::uuid AS a, lead(v::uuid) OVER (ORDER BY n) AS b
          FROM (SELECT n, timeuuid_next() AS v FROM generate_series(1, 10000) n) s) p
 WHERE b IS NOT NULL;
-- The clock moving back: clock_hooks.sql.
-- uuidv7_next() draws from the same stream, as uuid (so does uuidv7()
-- before PostgreSQL 18; from 18 on uuidv7() is core's: timeuuid_uuid.sql).
SELECT pg_typeof(uuidv7_next()), uuid_extract_version(uuidv7_next());
SELECT uuidv7_next()::timeuuid < timeuuid_next() AND timeuuid_next() < uuidv7_next()::timeuuid AS one_stream;
SELECT timeuuid_timestamp(uuidv7('-1 day')::timeuuid) < now() - interval '23 hours' AS shifted;

-- 9. Back-fill, and the bounds of a millisecond.
SELECT timeuuid_timestamp(timeuuid_next('2022-02-22 19:22:22.800123+00')) AS backfilled;
SELECT timeuuid_next('2022-02-22 19:22:22.8+00') <> timeuuid_next('2022-02-22 19:22:22.8+00') AS random_low_bits;
SELECT timeuuid_min('2022-02-22 19:22:22.800999+00'), timeuuid_max('2022-02-22 19:22:22.8+00');
SELECT label FROM ord
 WHERE v BETWEEN timeuuid_min('2022-02-22 19:22:22+00') AND timeuuid_max('2022-02-22 19:22:22.999+00')
 ORDER BY v;
SELECT timeuuid_min('1970-01-01 00:00:00+00'), timeuuid_max('10889-08-02 05:31:50.655+00');
SELECT timeuuid_min('1969-12-31 23:59:59.999+00'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_max('10889-08-02 05:31:50.656+00'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_next('infinity'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_min('-infinity'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_next(NULL), timeuuid_min(NULL), timeuuid_timestamp(NULL);

-- 10. Version 6 from libuuid, and conversions.
SELECT uuid_extract_version(timeuuid_v6()) AS version,
       abs(extract(epoch FROM timeuuid_timestamp(timeuuid_v6()) - clock_timestamp())) < 5 AS near_now;
SELECT timeuuid_v1_to_v6('c232ab00-9414-11ec-b3c8-9f6bdeced846') AS v6,
       timeuuid_v6_to_v1('1ec9414c-232a-6b00-b3c8-9f6bdeced846') AS v1;
SELECT bool_and(timeuuid_v6_to_v1(timeuuid_v1_to_v6(u))::uuid = u) AS round_trip
  FROM (SELECT timeuuid_v6_to_v1(timeuuid_v6())::uuid AS u FROM generate_series(1, 100)) s;
SELECT timeuuid_v1_to_v6('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_v6_to_v1('c232ab00-9414-11ec-b3c8-9f6bdeced846'); \echo :LAST_ERROR_SQLSTATE
SELECT timeuuid_v1_to_v6('00000000-0000-0000-0000-000000000000'); \echo :LAST_ERROR_SQLSTATE
-- SQL Server NEWSEQUENTIALID(): the RFC v1 vector as SQL Server prints it.
SELECT timeuuid_from_sqlserver('00AB32C2-1494-EC11-B3C8-9F6BDECED846');
SELECT timeuuid_from_sqlserver('c232ab00-9414-11ec-b3c8-9f6bdeced846'); \echo :LAST_ERROR_SQLSTATE

-- 11. PostgreSQL 17/18 names on uuid behave as core's: the version of an RFC
-- 9562 uuid, NULL otherwise.  Which versions uuid_extract_timestamp() reads
-- is core's choice and differs by server (17: 1 only; 15, 16, 18: 1 and 7;
-- 19: 1, 6 and 7; docs/timeuuid.md), so it is shown here only where every
-- server agrees; timeuuid_timestamp() reads versions 1, 6 and 7 on all.
SELECT u, uuid_extract_version(u)
  FROM (VALUES ('c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid),
               ('1ec9414c-232a-6b00-b3c8-9f6bdeced846'::uuid),
               ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid),
               ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
               ('017f22e2-79b0-7cc3-c8c4-dc0c0c07398f'::uuid),
               ('00000000-0000-0000-0000-000000000000'::uuid)) AS t(u);
SELECT u, uuid_extract_timestamp(u)
  FROM (VALUES ('c232ab00-9414-11ec-b3c8-9f6bdeced846'::uuid),
               ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
               ('017f22e2-79b0-7cc3-c8c4-dc0c0c07398f'::uuid),
               ('00000000-0000-0000-0000-000000000000'::uuid)) AS t(u);
SELECT v, timeuuid_timestamp(v)
  FROM (VALUES ('1ec9414c-232a-6b00-b3c8-9f6bdeced846'::timeuuid),
               ('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::timeuuid)) AS t(v);
-- A timeuuid goes through the cast to uuid; nil and max have neither a
-- version nor a timestamp.
SELECT v, uuid_extract_version(v), uuid_extract_timestamp(v), timeuuid_timestamp(v)
  FROM (VALUES ('00000000-0000-0000-0000-000000000000'::timeuuid),
               ('ffffffff-ffff-ffff-ffff-ffffffffffff'::timeuuid)) AS t(v);

-- 12. Labels: pure functions IMMUTABLE, generators VOLATILE, all PARALLEL SAFE.
-- (Names as regprocedure prints them, unqualified even where 17/18 core
-- functions of the same name hide them: this lists labels, not visibility.)
SELECT format('%s(%s)', p.proname, array_to_string(p.proargtypes::regtype[], ',')) AS function,
       provolatile, proparallel
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')
   AND d.deptype = 'e' AND p.prokind = 'f'
   AND (p.proname LIKE '%uuid%')
 ORDER BY 1;
