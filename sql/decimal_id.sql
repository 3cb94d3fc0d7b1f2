-- decimal_id(): counter * 10^10 + generator_id * 10^5 + launch_id ("cc..c ggggg lllll").
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE: the
-- output shows the error as a client sees it, then its SQLSTATE.

-- Layout: decoding hand-built ids.
SELECT * FROM decimal_id_decode(10000200003);
-- The regression server sets id_gen.launch_id = 1 (test/regress.conf).
SHOW id_gen.launch_id;
SELECT * FROM decimal_id_decode(9223372029999999999);
SELECT * FROM decimal_id_decode(9223372036854775807);
SELECT decimal_id_decode(0); \echo :LAST_ERROR_SQLSTATE
SELECT decimal_id_decode(9999999999); \echo :LAST_ERROR_SQLSTATE
SELECT decimal_id_decode(-10000200003); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM decimal_id_decode(NULL);

-- The first id of this database since the server started takes a generator
-- id (the sequence's first value, 0) and counts from 1.
SELECT * FROM decimal_id_decode(decimal_id());
SELECT launch_id, generator_id, counter, generators_taken, generator_ids_left FROM decimal_id_state();

-- Strictly increasing within a generator, unique.
CREATE TEMP TABLE d (n bigserial, id bigint);
INSERT INTO d (id) SELECT decimal_id() FROM generate_series(1, 100000);
SELECT count(*) AS rows, count(DISTINCT id) = count(*) AS unique_ids,
       bool_and(id > prev) AS strictly_increasing,
       bool_and(id % 100000 = 1) AS launch_id_in_every_id
  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM d) s;

-- The generator id lives in shared memory, not in the backend: a new
-- connection continues the same generator (connection churn burns none).
\c
SELECT generator_id, counter > 100000 AS continues FROM decimal_id_decode(decimal_id());

-- When the counter passes 922,337,202 a new generator id is taken
-- (id_gen.decimal_id_skip() is a superuser test hook that jumps ahead).
SELECT id_gen.decimal_id_skip(922337201);
SELECT * FROM decimal_id_decode(decimal_id());
SELECT * FROM decimal_id_decode(decimal_id());
SELECT * FROM decimal_id_decode(decimal_id());
SELECT generator_id, generators_taken FROM decimal_id_state();
SELECT id_gen.decimal_id_skip(-1); \echo :LAST_ERROR_SQLSTATE
SELECT id_gen.decimal_id_skip(922337203); \echo :LAST_ERROR_SQLSTATE

-- A WARNING once id_gen.headroom_warning_percent (90%) of the generator ids
-- are used, an ERROR when none remain.
SELECT setval('id_gen.decimal_generator', 99000);
SELECT id_gen.decimal_id_skip(922337202);
SELECT * FROM decimal_id_decode(decimal_id());
SELECT setval('id_gen.decimal_generator', 99999);
SELECT id_gen.decimal_id_skip(922337202);
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
SELECT generator_ids_left FROM decimal_id_state();
-- Rewinding the database's sequence alone (as DROP EXTENSION and CREATE
-- EXTENSION would) gives no generator id back: the server-wide counter, a
-- replication origin that outlives the extension, is ahead of it.
SELECT setval('id_gen.decimal_generator', 2);
SELECT (decimal_id_decode(decimal_id())).generator_id AS after_rewinding_the_sequence;
-- Recovering the server (tests only), as the hint says: rewind both.
SELECT setval('id_gen.decimal_generator', 2);
SELECT pg_replication_origin_advance('id_gen_decimal_generators', '0/0');
SELECT id_gen.decimal_id_skip(922337202);
SELECT (decimal_id_decode(decimal_id())).generator_id AS after_rewinding_both;

-- Ordinary users may generate, but not use the test hook.  The counter is
-- used up first, so the user's call takes a generator id from
-- id_gen.decimal_generator, on which the user has no privilege.
CREATE ROLE idgen_decimal_user;
SELECT id_gen.decimal_id_skip(922337202);
SET ROLE idgen_decimal_user;
SELECT has_sequence_privilege('id_gen.decimal_generator', 'UPDATE') AS user_may_take_generator;
SELECT decimal_id_decode(decimal_id()) AS user_id_with_new_generator;
SELECT id_gen.decimal_id_skip(5); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
DROP ROLE idgen_decimal_user;

-- Like nextval(), generators refuse read-only transactions.
BEGIN READ ONLY;
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;

-- Bad settings are rejected.
ALTER SYSTEM SET id_gen.launch_id = 100000;
ALTER SYSTEM SET id_gen.launch_id = -2;
SET id_gen.launch_id = 2; \echo :LAST_ERROR_SQLSTATE

