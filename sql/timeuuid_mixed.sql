-- timeuuid keys beside uuid columns that also hold other UUIDs (legacy
-- version 4 ids, ids of other tables), as a migration to timeuuid and every
-- ORM that declares its keys as UUID leave them.  Comparing a timeuuid with
-- any uuid is total: it never raises, whatever the uuid holds, so foreign
-- keys, the planner's statistics, row-level security and every index work.
SET timezone = 'UTC';
CREATE SCHEMA mixed;
SET search_path = mixed, public;

-- A deterministic version 4 uuid per integer.
CREATE FUNCTION v4(g int) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT overlay(overlay(md5('v4:' || g) PLACING '4' FROM 13) PLACING '8' FROM 17)::uuid
$$;
CREATE TABLE events (id timeuuid PRIMARY KEY, n int NOT NULL);
INSERT INTO events
SELECT timeuuid_min(timestamptz '2024-01-01' + g * interval '1 second'), g FROM generate_series(1, 5000) g;
ANALYZE events;

-- 1. A uuid foreign key referencing a timeuuid key, with a legacy version 4
-- row let in by NOT VALID: updating that row's other columns, deleting any
-- parent row, repairing the row and validating all work.
CREATE TABLE child (ref uuid, note text);
INSERT INTO child SELECT id, 'event' FROM events WHERE n % 2 = 0;
INSERT INTO child VALUES (v4(1), 'legacy');
ALTER TABLE child ADD CONSTRAINT child_ref FOREIGN KEY (ref) REFERENCES events NOT VALID;
UPDATE child SET note = 'legacy, seen' WHERE ref = v4(1);
DELETE FROM events WHERE n = 1;
DELETE FROM events WHERE n = 2; \echo :LAST_ERROR_SQLSTATE
UPDATE child SET ref = (SELECT id FROM events WHERE n = 3) WHERE ref = v4(1);
ALTER TABLE child VALIDATE CONSTRAINT child_ref;
-- A new row with a uuid no timeuuid can be is refused as any missing key is.
INSERT INTO child VALUES (v4(2), 'new'); \echo :LAST_ERROR_SQLSTATE

-- 2. The planner compares values of the statistics (most common values,
-- histograms) with the operators: audit rows naming events and version 4
-- entities plan and run the same before and after ANALYZE.
CREATE TABLE audit (entity_type text NOT NULL, entity_id uuid NOT NULL);
INSERT INTO audit SELECT 'event', id FROM events WHERE n % 5 <> 0;
INSERT INTO audit SELECT 'event', id FROM events WHERE n <= 50;
INSERT INTO audit SELECT 'invoice', v4(g % 40) FROM generate_series(1, 4000) g;
INSERT INTO audit SELECT 'invoice', v4(g) FROM generate_series(100, 2100) g;
SELECT count(*) FROM audit a JOIN events e ON a.entity_id = e.id WHERE a.entity_type = 'event';
SELECT count(*) FROM audit WHERE entity_id = timeuuid_min('2024-01-01 00:00:30');
ANALYZE audit;
SELECT count(*) FROM audit a JOIN events e ON a.entity_id = e.id WHERE a.entity_type = 'event';
SELECT count(*) FROM audit WHERE entity_id = timeuuid_min('2024-01-01 00:00:30');
SELECT count(*) FROM audit WHERE entity_id < timeuuid_min('2024-01-01 00:00:30');
SET enable_hashjoin = off; SET enable_nestloop = off;
SELECT count(*) FROM audit a JOIN events e ON a.entity_id = e.id;
RESET enable_hashjoin; RESET enable_nestloop;

-- 3. Row-level security and security_barrier views: a role whose rows a
-- policy selects keeps the primary key's index for uuid parameters (what
-- pgjdbc's setObject(UUID) and psycopg2's uuid.UUID send), because the
-- comparisons are LEAKPROOF.
CREATE ROLE idgen_tuuid_reader;
GRANT USAGE ON SCHEMA mixed TO idgen_tuuid_reader;
CREATE TABLE secured (id timeuuid PRIMARY KEY, reader name NOT NULL);
INSERT INTO secured
SELECT timeuuid_min(timestamptz '2024-01-01' + g * interval '1 second'),
       CASE WHEN g % 2 = 0 THEN 'idgen_tuuid_reader' ELSE 'someone' END
  FROM generate_series(1, 5000) g;
ANALYZE secured;
ALTER TABLE secured ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON secured USING (reader = current_user);
CREATE VIEW secured_view WITH (security_barrier) AS SELECT id FROM secured WHERE reader <> 'nobody';
GRANT SELECT ON secured, secured_view TO idgen_tuuid_reader;
SET ROLE idgen_tuuid_reader;
SET enable_seqscan = off;
PREPARE secured_by_id(uuid) AS SELECT count(*) FROM secured WHERE id = $1;
EXPLAIN (COSTS OFF) EXECUTE secured_by_id('018cc251-f7e8-7000-8000-000000000000');
EXECUTE secured_by_id(timeuuid_min('2024-01-01 00:00:02'));
EXECUTE secured_by_id(timeuuid_min('2024-01-01 00:00:03'));
RESET ROLE;
PREPARE view_by_id(uuid) AS SELECT count(*) FROM secured_view WHERE id = $1;
EXPLAIN (COSTS OFF) EXECUTE view_by_id('018cc251-f7e8-7000-8000-000000000000');
EXECUTE view_by_id(timeuuid_min('2024-01-01 00:00:03'));
RESET enable_seqscan;
-- Every function behind a comparison of the two types, and behind the
-- (uuid, uuid) members of the families, is LEAKPROOF.
SELECT DISTINCT p.oid::regprocedure AS not_leakproof
  FROM pg_amop ao JOIN pg_operator o ON o.oid = ao.amopopr JOIN pg_proc p ON p.oid = o.oprcode
  JOIN pg_opfamily f ON f.oid = ao.amopfamily
 WHERE f.opfname LIKE 'timeuuid%' AND NOT p.proleakproof;

-- 4. BRIN indexes of a timeuuid column serve uuid parameters with every
-- operator class: minmax, minmax-multi and bloom (equality only).
CREATE TABLE logged (id timeuuid NOT NULL, n int NOT NULL);
INSERT INTO logged
SELECT timeuuid_min(timestamptz '2024-01-01' + g * interval '1 second'), g FROM generate_series(1, 20000) g;
CREATE INDEX logged_minmax ON logged USING brin (id);
ANALYZE logged;
PREPARE logged_eq(uuid) AS SELECT n FROM logged WHERE id = $1;
PREPARE logged_range(uuid, uuid) AS SELECT count(*) FROM logged WHERE id >= $1 AND id < $2;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) EXECUTE logged_eq('018cc25a-5c07-7000-8000-000000000000');
EXPLAIN (COSTS OFF) EXECUTE logged_range('018cc25a-5c07-7000-8000-000000000000', '018cc25a-5c08-7000-8000-000000000000');
EXECUTE logged_eq(timeuuid_min('2024-01-01 00:00:07'));
EXECUTE logged_range(timeuuid_min('2024-01-01 01:00:00'), timeuuid_min('2024-01-01 02:00:00'));
DROP INDEX logged_minmax;
CREATE INDEX logged_multi ON logged USING brin (id timeuuid_minmax_multi_ops);
EXPLAIN (COSTS OFF) EXECUTE logged_eq('018cc25a-5c07-7000-8000-000000000000');
EXPLAIN (COSTS OFF) EXECUTE logged_range('018cc25a-5c07-7000-8000-000000000000', '018cc25a-5c08-7000-8000-000000000000');
EXECUTE logged_eq(timeuuid_min('2024-01-01 00:00:07'));
EXECUTE logged_range(timeuuid_min('2024-01-01 01:00:00'), timeuuid_min('2024-01-01 02:00:00'));
DROP INDEX logged_multi;
CREATE INDEX logged_bloom ON logged USING brin (id timeuuid_bloom_ops);
EXPLAIN (COSTS OFF) EXECUTE logged_eq('018cc25a-5c07-7000-8000-000000000000');
EXECUTE logged_eq(timeuuid_min('2024-01-01 00:00:07'));
-- A uuid no timeuuid can be finds nothing, through every index.
EXECUTE logged_eq(v4(1));
DROP INDEX logged_bloom;
CREATE INDEX logged_minmax ON logged USING brin (id);
EXECUTE logged_eq(v4(1));
EXECUTE logged_range(v4(1), v4(2));
RESET enable_seqscan;

-- 5. A uuid column referencing a timeuuid key, indexed with uuid_time_ops
-- (uuids ordered as timeuuids), is searched through that index when a
-- parent row is deleted, as a timeuuid column would be.
CREATE TABLE parent (id timeuuid PRIMARY KEY);
INSERT INTO parent
SELECT timeuuid_min(timestamptz '2024-01-01' + g * interval '1 second') FROM generate_series(1, 20000) g;
CREATE TABLE referencing (ref uuid REFERENCES parent, note text);
CREATE INDEX referencing_ref ON referencing (ref uuid_time_ops);
INSERT INTO referencing SELECT id, 'x' FROM parent;
INSERT INTO referencing VALUES (NULL, 'none');
ANALYZE parent, referencing;
BEGIN;
DELETE FROM referencing WHERE ref = timeuuid_min('2024-01-01 00:00:09');
SELECT seq_scan, seq_tup_read, coalesce(idx_scan, 0) AS idx_scan FROM pg_stat_xact_user_tables
 WHERE relid = 'referencing'::regclass \gset before_
DELETE FROM parent WHERE id = timeuuid_min('2024-01-01 00:00:09');
SELECT seq_scan - :before_seq_scan AS seq_scans, seq_tup_read - :before_seq_tup_read AS rows_read_sequentially,
       coalesce(idx_scan, 0) - :before_idx_scan AS index_scans
  FROM pg_stat_xact_user_tables WHERE relid = 'referencing'::regclass;
ROLLBACK;
-- The same index serves equality with timeuuids, and with uuids (a uuid
-- parameter, the column's own queries): its equality is uuid's =.
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM referencing WHERE ref = timeuuid_min('2024-01-01 00:00:09');
PREPARE referencing_by_uuid(uuid) AS SELECT count(*) FROM referencing WHERE ref = $1;
EXPLAIN (COSTS OFF) EXECUTE referencing_by_uuid('018cc252-1728-7000-8000-000000000000');
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT count(*) FROM referencing WHERE ref = timeuuid_min('2024-01-01 00:00:09');
EXECUTE referencing_by_uuid(timeuuid_min('2024-01-01 00:00:09'));

RESET search_path;
DROP SCHEMA mixed CASCADE;
DROP OWNED BY idgen_tuuid_reader;
DROP ROLE idgen_tuuid_reader;
