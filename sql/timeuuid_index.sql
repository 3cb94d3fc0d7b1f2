-- timeuuid with every access method: btree (with sortsupport), hash, BRIN;
-- sorting with abbreviated keys; merge and hash joins; planner estimates.
SET timezone = 'UTC';

-- One row per second of 2024-01-01 (86,400 rows), keyed by back-filled v7
-- values, plus v1 and v6 rows spread over the same day.
CREATE TABLE tu (id timeuuid PRIMARY KEY, at timestamptz NOT NULL, kind text NOT NULL);
INSERT INTO tu
SELECT timeuuid_next(t), t, 'v7'
  FROM generate_series(timestamptz '2024-01-01', '2024-01-01 23:59:59', '1 second') t;
-- v1/v6 at odd half-seconds: a v1 of 2024 is made from its timestamp here.
CREATE FUNCTION pg_temp.v1_at(ts timestamptz, node int) RETURNS timeuuid
LANGUAGE sql IMMUTABLE AS $$
  SELECT (lpad(to_hex(ticks & x'ffffffff'::bigint), 8, '0') || '-' ||
          lpad(to_hex((ticks >> 32) & 65535), 4, '0') || '-' ||
          lpad(to_hex(4096 | (ticks >> 48)), 4, '0') || '-8000-' ||
          lpad(to_hex(node), 12, '0'))::uuid::timeuuid
    FROM (SELECT (extract(epoch FROM ts) * 10000000)::bigint + 122192928000000000 AS ticks) s
$$;
INSERT INTO tu
SELECT CASE WHEN n % 2 = 0 THEN pg_temp.v1_at(t, n) ELSE timeuuid_v1_to_v6(pg_temp.v1_at(t, n)::uuid) END,
       t, CASE WHEN n % 2 = 0 THEN 'v1' ELSE 'v6' END
  FROM generate_series(0, 999) n, LATERAL (SELECT timestamptz '2024-01-01' + (n * 86.4 + 0.5) * interval '1 second') x(t);
ANALYZE tu;
SELECT kind, count(*) FROM tu GROUP BY kind ORDER BY kind;

-- The time each id carries is the time it was made for.
SELECT bool_and(timeuuid_timestamp(id) = date_trunc('milliseconds', at)) AS times_match FROM tu;

-- plan(q): EXPLAIN (COSTS OFF) q as every supported version prints it.  15
-- and 16 name an initplan's result "$0" ("InitPlan 1 (returns $0)"), 17+
-- "(InitPlan 1).col1"; 18 adds "Disabled: true" under a node the enable_*
-- settings advise against, and omits an "IS NOT NULL" index condition the
-- column's NOT NULL makes redundant; 19 names an initplan by what it stands
-- for ("InitPlan minmax_1", "expr_1") under a "Replaces:" line.  Every other
-- line is EXPLAIN's own.
CREATE FUNCTION pg_temp.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
    param text[];
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        CONTINUE WHEN line ~ '^ *Disabled: true$' OR line ~ '^ *Index Cond: \(\w+ IS NOT NULL\)$'
                   OR line ~ '^ *Replaces: ';
        line := regexp_replace(line, '^( *InitPlan \d+) \(returns \$\d+\)$', '\1');
        line := regexp_replace(line, 'InitPlan (minmax|expr)_(\d+)', 'InitPlan \2', 'g');
        FOR param IN SELECT regexp_matches(line, '\$(\d+)', 'g') LOOP
            line := replace(line, '$' || param[1], format('(InitPlan %s).col1', param[1]::int + 1));
        END LOOP;
        RETURN NEXT line;
    END LOOP;
END $$;

-- 1. btree: the primary key is used for =, for ranges and for min/max.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM tu WHERE id = '018cc251-f400-7000-8000-000000000000';
EXPLAIN (COSTS OFF)
SELECT count(*) FROM tu WHERE id >= timeuuid_min('2024-01-01 12:00') AND id < timeuuid_min('2024-01-01 13:00');
SELECT pg_temp.plan($$SELECT max(id) FROM tu$$);
RESET enable_bitmapscan;
-- An hour of the day holds its 3,600 v7 rows and the v1/v6 rows made in it,
-- and the index answers the same as a scan of the timestamps.
SELECT kind, count(*) FROM tu
 WHERE id >= timeuuid_min('2024-01-01 12:00') AND id < timeuuid_min('2024-01-01 13:00')
 GROUP BY kind ORDER BY kind;
SELECT count(*) AS by_time FROM tu WHERE at >= '2024-01-01 12:00' AND at < '2024-01-01 13:00';
SELECT timeuuid_timestamp(min(id)) AS first, timeuuid_timestamp(max(id)) AS last FROM tu;
-- Index order is time order.
SELECT bool_and(prev_at <= at) AS index_scan_in_time_order
  FROM (SELECT at, lag(at) OVER () AS prev_at FROM (SELECT at FROM tu ORDER BY id) s) p;
RESET enable_seqscan;

-- 2. The planner's estimates come from the histogram: about a tenth of the
-- rows lie before 02:24.
CREATE FUNCTION pg_temp.estimated_rows(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
SELECT pg_temp.estimated_rows($$SELECT * FROM tu WHERE id < timeuuid_min('2024-01-01 02:24')$$)
       BETWEEN 7000 AND 10500 AS lt_estimate_near_8740;
SELECT pg_temp.estimated_rows($$SELECT * FROM tu WHERE id > timeuuid_min('2024-01-01 02:24')$$)
       BETWEEN 77000 AND 80500 AS gt_estimate_near_78660;
SELECT pg_temp.estimated_rows($$SELECT * FROM tu WHERE id = '018cc251-f400-7000-8000-000000000000'$$) AS eq_estimate;

-- 3. amcheck agrees that the btree is ordered by timeuuid_cmp.
CREATE EXTENSION amcheck;
SELECT bt_index_check('tu_pkey', true), bt_index_parent_check('tu_pkey', true);
CREATE INDEX tu_id_desc ON tu (id DESC);
SELECT bt_index_parent_check('tu_id_desc', true);
-- Deduplication is allowed (btequalimage): equality is byte equality.
CREATE TEMP TABLE dup AS SELECT timeuuid_min('2024-01-01') AS v FROM generate_series(1, 10000);
CREATE INDEX dup_v ON dup (v);
SELECT bt_index_check('dup_v', true);
SELECT pg_relation_size('dup_v') < 100000 AS deduplicated;

-- 4. hash index.
CREATE INDEX tu_hash ON tu USING hash (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
DROP INDEX tu_id_desc;
SELECT id AS probe FROM tu WHERE at = '2024-01-01 00:00:07' \gset
BEGIN;
ALTER TABLE tu DROP CONSTRAINT tu_pkey;	-- leave the hash index as the only way
EXPLAIN (COSTS OFF) SELECT kind FROM tu WHERE id = '018cc252-0f58-7000-8000-000000000000';
SELECT kind, at FROM tu WHERE id = :'probe';
SELECT kind, at FROM tu WHERE id = pg_temp.v1_at('2024-01-01 00:02:53.3', 2);
SELECT kind, at FROM tu WHERE id = timeuuid_v1_to_v6(pg_temp.v1_at('2024-01-01 00:01:26.9', 1)::uuid);
ROLLBACK;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

-- Hash partitioning uses hash_extended: rows spread over the partitions and
-- an equality on the key prunes to one of them.  The hashes are uuid's.
CREATE TABLE tu_part (id timeuuid) PARTITION BY HASH (id);
CREATE TABLE tu_part_0 PARTITION OF tu_part FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE tu_part_1 PARTITION OF tu_part FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE tu_part_2 PARTITION OF tu_part FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO tu_part SELECT id FROM tu;
SELECT count(*) BETWEEN 28000 AND 30300 AS balanced FROM tu_part_0;
EXPLAIN (COSTS OFF) SELECT * FROM tu_part WHERE id = '018cc252-0f58-7000-8000-000000000000';
SELECT count(*) FROM tu_part WHERE id = :'probe';
SELECT bool_and(timeuuid_hash(id) = uuid_hash(id::uuid)
            AND timeuuid_hash_extended(id, 7) = uuid_hash_extended(id::uuid, 7)
            AND timeuuid_hash(id) = (timeuuid_hash_extended(id, 0) << 32 >> 32)::int) AS hashes_agree
  FROM tu;
DROP TABLE tu_part;

-- 5. BRIN minmax: rows inserted in time order give narrow block ranges.
CREATE TABLE tu_log AS SELECT timeuuid_next() AS id, n FROM generate_series(1, 50000) n;
CREATE INDEX tu_log_brin ON tu_log USING brin (id) WITH (pages_per_range = 4);
ANALYZE tu_log;
CREATE TEMP TABLE mid AS SELECT id FROM tu_log WHERE n IN (20000, 20100) ORDER BY n;
SET enable_seqscan = off;
SELECT pg_temp.plan($$
  SELECT count(*) FROM tu_log WHERE id BETWEEN (SELECT min(id) FROM mid) AND (SELECT max(id) FROM mid)$$);
SELECT count(*), min(n), max(n) FROM tu_log
 WHERE id BETWEEN (SELECT min(id) FROM mid) AND (SELECT max(id) FROM mid);
SELECT count(*) FROM tu_log WHERE id = (SELECT min(id) FROM mid);
-- minmax-multi (several intervals per block range, for tables whose rows
-- arrive partly out of order): 500 rows back-filled a day earlier, then the
-- same range query, and one over the back-filled rows.
INSERT INTO tu_log SELECT timeuuid_next(now() - interval '1 day'), -n FROM generate_series(1, 500) n;
CREATE INDEX tu_log_multi ON tu_log USING brin (id timeuuid_minmax_multi_ops) WITH (pages_per_range = 4);
DROP INDEX tu_log_brin;
SELECT pg_temp.plan($$
  SELECT count(*) FROM tu_log WHERE id BETWEEN (SELECT min(id) FROM mid) AND (SELECT max(id) FROM mid)$$);
SELECT count(*), min(n), max(n) FROM tu_log
 WHERE id BETWEEN (SELECT min(id) FROM mid) AND (SELECT max(id) FROM mid);
SELECT count(*) FROM tu_log WHERE id < timeuuid_min(now() - interval '12 hours');
-- bloom: equality only.
CREATE INDEX tu_log_bloom ON tu_log USING brin (id timeuuid_bloom_ops);
DROP INDEX tu_log_multi;
SELECT pg_temp.plan($$SELECT n FROM tu_log WHERE id = (SELECT min(id) FROM mid)$$);
SELECT n FROM tu_log WHERE id = (SELECT min(id) FROM mid);
RESET enable_seqscan;

-- 6. Sorting 200,000 values with abbreviated keys: a burst of timeuuid_next()
-- (many per millisecond), back-filled values, v6 values and their v1 forms.
SET work_mem = '64MB';
CREATE TEMP TABLE s AS
SELECT v FROM (
  SELECT timeuuid_next() AS v FROM generate_series(1, 100000)
  UNION ALL SELECT timeuuid_next(timestamptz '2024-01-01' + n * interval '1 ms') FROM generate_series(1, 50000) n
  UNION ALL SELECT timeuuid_v6() FROM generate_series(1, 25000)
  UNION ALL SELECT timeuuid_v6_to_v1(timeuuid_v6()) FROM generate_series(1, 25000)) u
ORDER BY random();
SELECT count(*) AS rows, bool_and(prev < v) AS sorted_strictly
  FROM (SELECT v, lag(v) OVER () AS prev FROM (SELECT v FROM s ORDER BY v) o) p;
SELECT bool_and(prev > v) AS sorted_desc
  FROM (SELECT v, lag(v) OVER () AS prev FROM (SELECT v FROM s ORDER BY v DESC) o) p;
-- Low cardinality (abbreviation gives up): 20,000 rows of 4 distinct values.
CREATE TEMP TABLE low AS
SELECT (ARRAY[timeuuid_min('2024-01-01'), timeuuid_max('2024-01-01'),
              timeuuid_min('2024-01-02'), '00000000-0000-0000-0000-000000000000'::timeuuid])[1 + n % 4] AS v
  FROM generate_series(1, 20000) n ORDER BY random();
SELECT v, count(*) FROM low GROUP BY v ORDER BY v;
SELECT bool_and(prev <= v) AS sorted
  FROM (SELECT v, lag(v) OVER () AS prev FROM (SELECT v FROM low ORDER BY v) o) p;
-- DISTINCT via sort and via hashing agree.
SET enable_hashagg = off;
SELECT count(DISTINCT v) AS distinct_sorted FROM s;
RESET enable_hashagg;
SELECT count(*) AS distinct_hashed FROM (SELECT v FROM s GROUP BY v) g;

-- 7. Joins: merge join (btree order, MERGES) and hash join (HASHES).
CREATE TEMP TABLE half AS SELECT id FROM tu WHERE kind <> 'v7' OR extract(second FROM at)::int % 2 = 0;
ANALYZE half;
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tu JOIN half USING (id);
SELECT count(*) FROM tu JOIN half USING (id);
RESET enable_hashjoin;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tu JOIN half USING (id);
SELECT count(*) FROM tu JOIN half USING (id);
RESET enable_mergejoin;
RESET enable_nestloop;

DROP TABLE tu, tu_log;
DROP EXTENSION amcheck;
