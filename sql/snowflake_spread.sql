-- id_gen.snowflake_start_spread (issue 22): where the sequence of a new
-- millisecond of snowflake_next() and jsid_next() starts.  At a low rate
-- every id opens a millisecond; starting each at sequence 0 gave every id
-- of a server the same id % 16, one shard of a modulo-sharded table taking
-- everything.  The setting is a reload setting: this file changes the
-- server's configuration (ALTER SYSTEM, pg_reload_conf()), so make
-- installcheck leaves it out.

-- The library is loaded (ALTER SYSTEM needs to know the setting).
SELECT snowflake_next() > 0 AND jsid_next() > 0 AS loaded;
SHOW id_gen.snowflake_start_spread;

-- Out of range: 0 .. 4095, snowflake's sequence space minus one.
ALTER SYSTEM SET id_gen.snowflake_start_spread = 4096; \echo :LAST_ERROR_SQLSTATE
ALTER SYSTEM SET id_gen.snowflake_start_spread = -1; \echo :LAST_ERROR_SQLSTATE
-- Only a reload changes it.
SET id_gen.snowflake_start_spread = 15; \echo :LAST_ERROR_SQLSTATE

-- k ids at a low rate: each after a 1 ms sleep, so in a millisecond of its own.
CREATE TEMP TABLE low (spread int, gen text, n int, id bigint);
CREATE FUNCTION pg_temp.low_rate(gen text, k int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    spread int := current_setting('id_gen.snowflake_start_spread')::int;
BEGIN
    FOR i IN 1 .. k LOOP
        PERFORM pg_sleep(0.001);
        INSERT INTO low VALUES (spread, gen, i,
            CASE gen WHEN 'snowflake' THEN snowflake_next() ELSE jsid_next() END);
    END LOOP;
END $$;
-- What the ids of a spread show: one per millisecond; the residues of
-- id % 16 seen; whether each of the 16 holds within 25% of an even share;
-- whether consecutive ids take them in turn; the sequences decoded.
CREATE FUNCTION pg_temp.spread_of(s int) RETURNS TABLE (gen text, ids bigint, one_per_ms boolean,
    residues bigint, within_25pct boolean, in_turn boolean, sequences text)
LANGUAGE sql AS $$
SELECT l.gen, count(*),
       count(DISTINCT CASE l.gen WHEN 'snowflake' THEN id >> 22 ELSE id >> 12 END) = count(*),
       (SELECT count(DISTINCT id % 16) FROM low x WHERE x.spread = s AND x.gen = l.gen),
       (SELECT count(*) = 16 AND bool_and(c BETWEEN 0.75 * t / 16 AND 1.25 * t / 16)
          FROM (SELECT count(*) AS c, sum(count(*)) OVER () AS t
                  FROM low x WHERE x.spread = s AND x.gen = l.gen GROUP BY id % 16) r),
       bool_and(id % 16 = (prev + 1) % 16) FILTER (WHERE prev IS NOT NULL),
       (SELECT string_agg(DISTINCT d.sequence::text, ',' ORDER BY d.sequence::text)
          FROM low x, LATERAL (SELECT sequence FROM snowflake_decode(x.id) WHERE x.gen = 'snowflake'
                               UNION ALL SELECT sequence FROM jsid_decode(x.id) WHERE x.gen = 'jsid') d
         WHERE x.spread = s AND x.gen = l.gen)
  FROM (SELECT *, lag(id) OVER (PARTITION BY gen ORDER BY n) AS prev FROM low WHERE spread = s) l
 GROUP BY l.gen ORDER BY l.gen
$$;

-- 0: every millisecond starts at sequence 0: all ids on one
-- residue of id % 16 (0: the worker id is 0).
ALTER SYSTEM SET id_gen.snowflake_start_spread = 0;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW id_gen.snowflake_start_spread;
SELECT pg_temp.low_rate('snowflake', 160), pg_temp.low_rate('jsid', 160);
SELECT * FROM pg_temp.spread_of(0);

-- 15: the same rate takes the 16 residues in turn, 10 ids each.
ALTER SYSTEM SET id_gen.snowflake_start_spread = 15;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW id_gen.snowflake_start_spread;
SELECT pg_temp.low_rate('snowflake', 160), pg_temp.low_rate('jsid', 160);
SELECT * FROM pg_temp.spread_of(15);
SELECT min(c) AS fewest, max(c) AS most
  FROM (SELECT count(*) AS c FROM low WHERE spread = 15 GROUP BY gen, id % 16) r;

-- The largest spread: a millisecond may start near its end; a batch that
-- does not fit after the start starts lower (a whole millisecond at 0), in a
-- later millisecond than every id before it.  jsid_next() applies at most
-- 255, its own sequence space minus one.
ALTER SYSTEM SET id_gen.snowflake_start_spread = 4095;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW id_gen.snowflake_start_spread;
SELECT pg_temp.low_rate('snowflake', 3);
CREATE TEMP TABLE batch AS SELECT id FROM snowflake_next_batch(4096) AS id;
SELECT count(*) AS ids, count(DISTINCT id >> 22) AS milliseconds,
       min(id) > (SELECT max(id) FROM low) AS above_earlier_ids,
       (SELECT sequence FROM snowflake_decode(min(id))) AS first_sequence
  FROM batch;
SELECT * FROM id_gen.headroom_ms_capacity('snowflake');
SELECT * FROM id_gen.headroom_ms_capacity('jsid');
SELECT generator, detail->'start_spread' AS start_spread, detail->'ids_per_ms_fewest' AS fewest,
       detail->'ids_per_ms_saturated' AS saturated
  FROM id_gen.headroom WHERE generator IN ('snowflake', 'jsid') ORDER BY 1;
SELECT * FROM id_gen.headroom_ms_capacity('uuid'); \echo :LAST_ERROR_SQLSTATE

-- Back to the default (255): a millisecond holds at least 3841 snowflake
-- ids, and at saturation 4096 (it follows a full one and starts at 0).
ALTER SYSTEM RESET id_gen.snowflake_start_spread;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW id_gen.snowflake_start_spread;
SELECT * FROM id_gen.headroom_ms_capacity('snowflake');
SELECT snowflake_next() > (SELECT max(id) FROM batch) AS still_increasing;
