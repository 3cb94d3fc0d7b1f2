-- issue 11, part 2: id_encode / id_decode, a keyed permutation of
-- [1, 2^63-1] (js_safe: [1, 2^53-1]) for public ids.  Obfuscation, not encryption.
-- Random-looking output is checked with true/false assertions, except the
-- pinned values: published ids must decode the same in every later version.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE.

-- 1. Pinned outputs (test/unit/id_permute_test.cpp pins the same).
SELECT id_encode(1, 'id_gen test key') AS big_1,
       id_encode(2, 'id_gen test key') AS big_2,
       id_encode(9223372036854775807, 'id_gen test key') AS big_max,
       id_encode(1, 'id_gen test key', true) AS js_1,
       id_encode(2, 'id_gen test key', js_safe => true) AS js_2,
       id_encode(9007199254740991, 'id_gen test key', true) AS js_max;
SELECT id_decode(2234283601078692495, 'id_gen test key') AS back_1,
       id_decode(1772109577453335, 'id_gen test key', true) AS back_js_max;

-- 2. Bijectivity and round trips: 200,000 consecutive ids, edges, and
-- every power of two with its neighbours, in both domains.
CREATE TEMP TABLE enc AS
SELECT js, x, id_encode(x, 'k', js) AS y
  FROM (VALUES (false), (true)) d(js),
       LATERAL (SELECT generate_series(1, 200000)::bigint AS x
                UNION SELECT CASE WHEN js THEN 9007199254740991 ELSE 9223372036854775807 END - g
                        FROM generate_series(0, 2) g
                UNION SELECT (1::bigint << b) + o
                        FROM generate_series(1, CASE WHEN js THEN 52 ELSE 62 END) b, generate_series(-2, 2) o
                       WHERE (1::bigint << b) + o >= 1) s;
SELECT js, count(*) AS inputs, count(DISTINCT y) = count(*) AS distinct_outputs,
       bool_and(y BETWEEN 1 AND CASE WHEN js THEN 9007199254740991 ELSE 9223372036854775807 END) AS in_domain,
       bool_and(id_decode(y, 'k', js) = x) AS round_trip,
       bool_and(y <> x) AS none_fixed
  FROM enc GROUP BY js ORDER BY js;
-- The outputs of consecutive ids reveal no order: about half go up.
SELECT js, round(avg((y2 > y)::int), 2) BETWEEN 0.48 AND 0.52 AS half_increase,
       round(avg(y::numeric) / CASE WHEN js THEN 9007199254740991 ELSE 9223372036854775807 END, 2)
         BETWEEN 0.49 AND 0.51 AS centred
  FROM (SELECT js, y, lead(y) OVER (PARTITION BY js ORDER BY x) AS y2 FROM enc WHERE x <= 200000) s
 WHERE y2 IS NOT NULL GROUP BY js ORDER BY js;
-- Another key, another permutation; the two domains are unrelated too.
SELECT count(*) FILTER (WHERE id_encode(g, 'k') = id_encode(g, 'k2')) AS same_under_two_keys,
       count(*) FILTER (WHERE id_encode(g, 'k') = id_encode(g, 'k', true)) AS same_in_two_domains
  FROM generate_series(1, 10000) g;

-- 3. Outside the domain: 22003; an empty key: 22023; NULL in, NULL out.
SELECT id_encode(0, 'k'); \echo :LAST_ERROR_SQLSTATE
SELECT id_encode(-5, 'k'); \echo :LAST_ERROR_SQLSTATE
SELECT id_decode(0, 'k'); \echo :LAST_ERROR_SQLSTATE
SELECT id_encode(9007199254740992, 'k', true); \echo :LAST_ERROR_SQLSTATE
SELECT id_decode(9007199254740992, 'k', true); \echo :LAST_ERROR_SQLSTATE
SELECT id_encode(1, ''); \echo :LAST_ERROR_SQLSTATE
SELECT id_encode(NULL, 'k') IS NULL AS null_id, id_encode(1, NULL) IS NULL AS null_key,
       id_encode(1, 'k', NULL) IS NULL AS null_domain;

-- 4. The key from the setting id_gen.encode_key: superusers only.
SELECT id_encode(42); \echo :LAST_ERROR_SQLSTATE
SET id_gen.encode_key = 'server secret';
SELECT id_encode(42) = id_encode(42, 'server secret') AS same_as_argument,
       id_encode(42, true) = id_encode(42, 'server secret', true) AS js_same,
       id_decode(id_encode(42)) AS back;
CREATE ROLE idgen_enc_user;
SET ROLE idgen_enc_user;
-- Ordinary users use the key but can neither read nor change it.
SELECT id_decode(id_encode(42)) AS user_round_trip,
       id_encode(42) = id_encode(42, 'server secret') AS user_same_key;
-- (the message's wording changed in 16: only the SQLSTATE is shown)
\set VERBOSITY sqlstate
SHOW id_gen.encode_key;
SELECT current_setting('id_gen.encode_key');
\set VERBOSITY default
SELECT count(*) AS visible_in_pg_settings FROM pg_settings WHERE name = 'id_gen.encode_key';
SET id_gen.encode_key = 'mine'; \echo :LAST_ERROR_SQLSTATE
-- pg_db_role_setting is readable by every user: never ALTER DATABASE/ROLE ... SET the key.
SELECT has_table_privilege('pg_db_role_setting', 'SELECT') AS role_settings_public;
RESET ROLE;
DROP ROLE idgen_enc_user;
SHOW id_gen.encode_key;
-- Parallel workers get the leader's setting: same results under a Gather.
CREATE TEMP TABLE serial AS SELECT g, id_encode(g) AS y FROM generate_series(1, 1000) g;
CREATE TABLE par_src AS SELECT g FROM generate_series(1, 1000) g;
-- Every query through a parallel worker: force_parallel_mode up to 15,
-- renamed debug_parallel_query in 16.
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS parallel_forced;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
EXPLAIN (COSTS OFF) SELECT id_encode(g) FROM par_src;
SELECT count(*) AS same_in_parallel FROM par_src p JOIN serial s USING (g) WHERE id_encode(p.g) = s.y;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false) AS parallel_forced;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
DROP TABLE par_src;
RESET id_gen.encode_key;
SELECT id_decode(42); \echo :LAST_ERROR_SQLSTATE

-- 5. Labels: IMMUTABLE with the key as argument, STABLE with the setting.
SELECT p.oid::regprocedure, provolatile, proparallel, proisstrict
  FROM pg_proc p WHERE proname IN ('id_encode', 'id_decode') ORDER BY p.oid::regprocedure::text;
