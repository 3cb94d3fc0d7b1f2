-- bench/setup.sql: the candidates and measuring functions of bench/run.sh.
-- Candidates whose function does not exist (yet) are skipped.

CREATE SEQUENCE bench_seq_cache1 CACHE 1;
CREATE SEQUENCE bench_seq_cache1000 CACHE 1000;
-- Hi/Lo keys at max_lo 1000 and, to magnify the per-block cost, 10; of a
-- table without and with a primary key of 100,000 rows (no draw reads it).
CREATE TABLE bench_hilo (id bigint DEFAULT hilo_next('bench_hilo'));
CREATE TABLE bench_hilo10 (id bigint DEFAULT hilo_next('bench_hilo10'));
CREATE TABLE bench_hilo_pk (id bigint PRIMARY KEY DEFAULT hilo_next('bench_hilo_pk'));
CREATE TABLE bench_hilo10_pk (id bigint PRIMARY KEY DEFAULT hilo_next('bench_hilo10_pk'));
INSERT INTO bench_hilo_pk SELECT generate_series(1, 100000);
INSERT INTO bench_hilo10_pk SELECT generate_series(1, 100000);
DO $$
BEGIN
    PERFORM hilo_create_key('bench_hilo', max_lo => 1000), hilo_create_key('bench_hilo_pk', max_lo => 1000),
            hilo_create_key('bench_hilo10', max_lo => 10), hilo_create_key('bench_hilo10_pk', max_lo => 10);
EXCEPTION WHEN duplicate_object THEN    -- versions whose DDL made the key
    PERFORM hilo_set_max_lo('bench_hilo', 1000), hilo_set_max_lo('bench_hilo_pk', 1000),
            hilo_set_max_lo('bench_hilo10', 10), hilo_set_max_lo('bench_hilo10_pk', 10);
END $$;
ANALYZE bench_hilo_pk, bench_hilo10_pk;

CREATE FUNCTION bench_candidates() RETURNS TABLE (name text, expr text)
LANGUAGE sql AS $$
    SELECT c.name, c.expr
      FROM (VALUES
        (1, 'count(1) loop', '1', NULL),
        (2, 'id_gen.noop() (C floor)', 'id_gen.noop()', 'id_gen.noop()'),
        (3, 'nextval CACHE 1', 'nextval(''bench_seq_cache1'')', NULL),
        (4, 'nextval CACHE 1000', 'nextval(''bench_seq_cache1000'')', NULL),
        (5, 'gen_random_uuid()', 'gen_random_uuid()', NULL),
        (6, 'hilo_next (max_lo 1000)', 'hilo_next(''bench_hilo'')', 'hilo_next(regclass)'),
        (7, 'hilo_next, primary key, 1000', 'hilo_next(''bench_hilo_pk'')', 'hilo_next(regclass)'),
        (8, 'hilo_next, no primary key, 10', 'hilo_next(''bench_hilo10'')', 'hilo_next(regclass)'),
        (9, 'hilo_next, primary key, 10', 'hilo_next(''bench_hilo10_pk'')', 'hilo_next(regclass)'),
        (10, 'snowflake_next()', 'snowflake_next()', 'snowflake_next()'),
        (11, 'decimal_id()', 'decimal_id()', 'decimal_id()'),
        (12, 'timeuuid_next()', 'timeuuid_next()', 'timeuuid_next()'),
        (13, 'uuidv7_next()', 'uuidv7_next()', 'uuidv7_next()'),
        (14, 'jsid_next()', 'jsid_next()', 'jsid_next()'),
        -- public ids: the id as it is, id_encode, and what users write in SQL instead
        (15, 'bigint as is (generate_series)', 'generate_series', NULL),
        (16, 'id_encode(id, key)', 'id_encode(generate_series, ''bench key'')', 'id_encode(bigint,text,boolean)'),
        (17, 'id_encode(id, key, js_safe)', 'id_encode(generate_series, ''bench key'', true)', 'id_encode(bigint,text,boolean)'),
        (18, 'id_encode(id) (setting)', 'id_encode(generate_series)', 'id_encode(bigint,boolean)'),
        (19, 'id_decode(id_encode(id, key), key)', 'id_decode(id_encode(generate_series, ''bench key''), ''bench key'')', 'id_encode(bigint,text,boolean)'),
        (20, 'multiplicative hash in SQL', 'bench_sql_multiplicative(generate_series)', NULL),
        (21, 'Feistel in PL/pgSQL', 'bench_sql_feistel(generate_series)', NULL)
      ) AS c(ord, name, expr, needs)
     WHERE c.needs IS NULL OR to_regprocedure(c.needs) IS NOT NULL
     ORDER BY c.ord
$$;

-- What users write instead of id_encode() when they hide sequential ids in
-- SQL: Knuth's multiplicative hashing modulo 2^63 (a bijection, but its low
-- bits follow the input's), and a Feistel network in PL/pgSQL (three rounds
-- over two 31-bit halves of a 62-bit id, round function a multiplicative
-- hash of the half and the round key), the shape of the scripts that
-- circulate for this.  Written for this benchmark only.
CREATE FUNCTION bench_sql_multiplicative(id bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ((id::numeric * 11400714819323198485) % 9223372036854775808)::bigint
$$;
CREATE FUNCTION bench_sql_feistel(id bigint) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    l bigint := (id >> 31) & 2147483647;
    r bigint := id & 2147483647;
    t bigint;
    k bigint[] := ARRAY[1234567, 7654321, 2468013];
BEGIN
    FOR i IN 1..3 LOOP
        t := r;
        r := l # ((((r # k[i]) * 40503) # ((r # k[i]) >> 13)) & 2147483647);
        l := t;
    END LOOP;
    RETURN (l << 31) | r;
END $$;

-- Median ns per row of each candidate; repetitions are interleaved, in a
-- new random order each time, so that drift in machine speed and cache
-- effects hit every candidate alike.  x_floor compares whole calls (gross)
-- with the trivial C call: net figures of a few ns are within noise.
CREATE FUNCTION bench_per_call(n int, reps int)
RETURNS TABLE (candidate text, gross_ns numeric, net_ns numeric,
               x_floor_gross numeric, x_faster_than_nextval1 numeric, x_faster_than_random_uuid numeric)
LANGUAGE plpgsql AS $$
DECLARE
    c record;
    t0 timestamptz;
BEGIN
    CREATE TEMP TABLE samples (name text, ord int, ns float8) ON COMMIT DROP;
    FOR r IN 1..reps LOOP
        FOR c IN SELECT * FROM (SELECT b.name, row_number() OVER () AS ord, b.expr
                                  FROM bench_candidates() b) o
                  ORDER BY random() LOOP
            t0 := clock_timestamp();
            EXECUTE format('SELECT count(%s) FROM generate_series(1, %s)', c.expr, n);
            INSERT INTO samples VALUES (c.name, c.ord,
                extract(epoch FROM clock_timestamp() - t0) * 1e9 / n);
        END LOOP;
    END LOOP;
    RETURN QUERY
    WITH med AS (
        SELECT s.name, min(s.ord) AS ord,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ns) AS ns
          FROM samples s GROUP BY s.name),
    net AS (
        SELECT m.name, m.ord, m.ns,
               m.ns - (SELECT ns FROM med WHERE name = 'count(1) loop') AS net
          FROM med m)
    SELECT n.name, round(n.ns::numeric, 1), round(n.net::numeric, 1),
           round((n.ns / (SELECT ns FROM net WHERE name = 'id_gen.noop() (C floor)'))::numeric, 2),
           round(((SELECT net FROM net WHERE name = 'nextval CACHE 1') / nullif(n.net, 0))::numeric, 2),
           round(((SELECT net FROM net WHERE name = 'gen_random_uuid()') / nullif(n.net, 0))::numeric, 2)
      FROM net n ORDER BY n.ord;
END $$;

-- One session at saturation: a snowflake layout allows 4096 ids per
-- millisecond (jsid's 256).  generate_series is materialised before the first
-- id is issued, so the wall-clock rate understates the generator; the issuing
-- window is read from the ids themselves (first and last millisecond).
CREATE FUNCTION bench_stream_rate(fn text, n int, time_shift int, per_ms int)
RETURNS TABLE (generator text, ids bigint, wall_seconds numeric, issuing_ms bigint,
               ids_per_s numeric, pct_of_ceiling numeric)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
    secs float8;
    lo bigint;
    hi bigint;
    window_ms bigint;
BEGIN
    EXECUTE format('SELECT min(id), max(id) FROM (SELECT %s AS id FROM generate_series(1, %s)) s', fn, n)
       INTO lo, hi;
    secs := extract(epoch FROM clock_timestamp() - t0);
    -- ids of the first and last millisecond count whole: (hi_ms - lo_ms + 1) ms
    window_ms := (hi >> time_shift) - (lo >> time_shift) + 1;
    RETURN QUERY SELECT fn, n::bigint, round(secs::numeric, 3), window_ms,
                        round(n * 1000.0 / window_ms), round(100.0 * n / window_ms / per_ms, 1);
END $$;

CREATE FUNCTION bench_snowflake_rate(n int)
RETURNS TABLE (generator text, ids bigint, wall_seconds numeric, issuing_ms bigint,
               ids_per_s numeric, pct_of_ceiling numeric)
LANGUAGE sql AS $$ SELECT * FROM bench_stream_rate('snowflake_next()', n, 22, 4096) $$;

-- Fresh table per key type; batches of 10000 rows, each its own transaction.
CREATE TABLE bench_insert_results (key text, seconds numeric, pkey_mb numeric,
                                   leaf_density numeric, wal_mb numeric, x_time_of_bigint numeric);

-- Two passes over the key types; the better time of each is kept, so that
-- whichever table happens to go first does not pay for a cold start.
CREATE PROCEDURE bench_inserts(total int)
LANGUAGE plpgsql AS $$
DECLARE
    k record;
    pass int;
    t0 timestamptz;
    lsn0 pg_lsn;
    secs float8;
    base float8;
BEGIN
    CREATE TEMP TABLE IF NOT EXISTS bench_insert_pass (ord int, key text, seconds float8,
        pkey_mb numeric, leaf_density numeric, wal_mb numeric);
    TRUNCATE bench_insert_pass;
    FOR pass IN 1..2 LOOP
    FOR k IN
        SELECT * FROM (VALUES
            (1, 'bigint, sequence', 'bigint', 'nextval(''bench_ins_seq'')', NULL),
            (2, 'bigint, hilo_next', 'bigint', 'hilo_next(''bench_ins_2'')', 'hilo_next(regclass)'),
            (3, 'bigint, snowflake_next', 'bigint', 'snowflake_next()', 'snowflake_next()'),
            (4, 'timeuuid, timeuuid_next', 'timeuuid', 'timeuuid_next()', 'timeuuid_next()'),
            (5, 'uuid, gen_random_uuid', 'uuid', 'gen_random_uuid()', NULL),
            (6, 'bigint, jsid_next', 'bigint', 'jsid_next()', 'jsid_next()')
        ) AS v(ord, name, typ, dflt, needs)
        WHERE v.needs IS NULL OR to_regprocedure(v.needs) IS NOT NULL
        ORDER BY ord
    LOOP
        EXECUTE 'DROP TABLE IF EXISTS bench_ins_' || k.ord;
        DROP SEQUENCE IF EXISTS bench_ins_seq CASCADE;
        CREATE SEQUENCE bench_ins_seq;
        EXECUTE format('CREATE TABLE bench_ins_%s (id %s PRIMARY KEY, payload int)', k.ord, k.typ);
        EXECUTE format('ALTER TABLE bench_ins_%s ALTER id SET DEFAULT %s', k.ord, k.dflt);
        IF k.dflt LIKE 'hilo_next(%' THEN
            PERFORM hilo_create_key(format('bench_ins_%s', k.ord)::regclass);
        END IF;
        COMMIT;
        CHECKPOINT;
        lsn0 := pg_current_wal_lsn();
        t0 := clock_timestamp();
        FOR b IN 1..(total / 10000) LOOP
            EXECUTE format('INSERT INTO bench_ins_%s (payload) SELECT g FROM generate_series(1, 10000) g', k.ord);
            COMMIT;
        END LOOP;
        secs := extract(epoch FROM clock_timestamp() - t0);
        INSERT INTO bench_insert_pass
        SELECT k.ord, k.name, secs,
               round(pg_relation_size(format('bench_ins_%s_pkey', k.ord)) / 1048576.0, 1),
               round(s.avg_leaf_density::numeric, 1),
               round(pg_wal_lsn_diff(pg_current_wal_lsn(), lsn0) / 1048576.0, 1)
          FROM pgstatindex(format('bench_ins_%s_pkey', k.ord)) s;
        COMMIT;
    END LOOP;
    END LOOP;
    SELECT min(seconds) INTO base FROM bench_insert_pass WHERE ord = 1;
    TRUNCATE bench_insert_results;
    INSERT INTO bench_insert_results
    SELECT DISTINCT ON (ord) key, round(seconds::numeric, 2), pkey_mb, leaf_density, wal_mb,
           round((seconds / base)::numeric, 2)
      FROM bench_insert_pass ORDER BY ord, seconds;
    COMMIT;
END $$;

-- Sorting n values given in random order: median of 3 sorts per type.
CREATE FUNCTION bench_sort(n int)
RETURNS TABLE (type text, sort_seconds numeric, x_time_of_uuid numeric)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    s float8[];
    u_med float8;
    t_med float8;
BEGIN
    DROP TABLE IF EXISTS bench_sort_uuid, bench_sort_timeuuid;
    CREATE TABLE bench_sort_uuid AS SELECT gen_random_uuid() AS v FROM generate_series(1, n);
    s := '{}';
    FOR i IN 1..3 LOOP
        t0 := clock_timestamp();
        PERFORM v FROM bench_sort_uuid ORDER BY v OFFSET n LIMIT 1;
        s := s || extract(epoch FROM clock_timestamp() - t0);
    END LOOP;
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO u_med FROM unnest(s) x;
    type := 'uuid'; sort_seconds := round(u_med::numeric, 3); x_time_of_uuid := 1;
    RETURN NEXT;
    IF to_regprocedure('timeuuid_next()') IS NULL THEN RETURN; END IF;
    EXECUTE 'CREATE TABLE bench_sort_timeuuid AS
             SELECT v FROM (SELECT timeuuid_next() AS v FROM generate_series(1, $1)) g ORDER BY random()'
      USING n;
    s := '{}';
    FOR i IN 1..3 LOOP
        t0 := clock_timestamp();
        EXECUTE 'SELECT v FROM bench_sort_timeuuid ORDER BY v OFFSET $1 LIMIT 1' USING n;
        s := s || extract(epoch FROM clock_timestamp() - t0);
    END LOOP;
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) INTO t_med FROM unnest(s) x;
    type := 'timeuuid'; sort_seconds := round(t_med::numeric, 3);
    x_time_of_uuid := round((t_med / u_med)::numeric, 2);
    RETURN NEXT;
END $$;
