-- Hi/Lo: blocks that adapt per backend (hilo_set_adaptive).  A key's max_lo
-- becomes the unit: each backend takes a run of whole blocks whose length
-- follows its pace (32 ids at first, up to about a million), drawn with the
-- key's draw lock held exclusively and one setval() past the first value.  Many
-- sessions and changes under load: test/t/019_hilo_reserve.pl.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE:
-- the output shows the error as a client sees it, then its SQLSTATE.

-- The default: a key made by the table's DDL adapts (id_gen.hilo_adaptive is
-- on; test/regress.conf turns it off for the other tests' outputs).
SET id_gen.hilo_adaptive = on;
CREATE TABLE ad_default (id bigint PRIMARY KEY DEFAULT hilo_next('ad_default'));
INSERT INTO ad_default SELECT FROM generate_series(1, 3000);
SELECT max_lo, adaptive FROM id_gen.hilo_keys WHERE table_name = 'ad_default'::regclass;
-- A new backend asks for 32 ids (one block of 1000), then, using them at
-- once, 16 times as many each draw: 512 (one block), 8192 (a run of 9).
SELECT hilo_backend_draws('ad_default') AS draws, max(id) AS max_id FROM ad_default;
SELECT reserved_to FROM id_gen.hilo_keys WHERE table_name = 'ad_default'::regclass;
-- Off (as test/regress.conf sets it): a new key takes one block per draw.
RESET id_gen.hilo_adaptive;
CREATE TABLE ad_fixed (id bigint DEFAULT hilo_next('ad_fixed'));
SELECT hilo_next('ad_fixed') AS first_id;
SELECT max_lo, adaptive FROM id_gen.hilo_keys WHERE table_name = 'ad_fixed'::regclass;
DROP TABLE ad_default, ad_fixed;

CREATE TABLE ad (id bigint PRIMARY KEY DEFAULT hilo_next('ad'), who text);
SELECT hilo_set_max_lo('ad', 8);
SELECT hilo_set_adaptive('ad');
SELECT adaptive FROM id_gen.hilo_keys WHERE table_name = 'ad'::regclass;

-- A new backend takes 32 ids (4 blocks of 8), then,
-- using them at once, 16 times as many: 2 draws for 500 rows.
INSERT INTO ad (who) SELECT 's1' FROM generate_series(1, 500);
SELECT hilo_backend_draws('ad') AS draws, max(id) FROM ad;
SELECT last_hi, reserved_to FROM id_gen.hilo_keys WHERE table_name = 'ad'::regclass;
-- A busy backend reaches about a million ids per draw in a few draws.
INSERT INTO ad (who) SELECT 's1' FROM generate_series(1, 300000);
SELECT hilo_backend_draws('ad') AS draws;
-- Another session starts small again, above every run drawn so far.
\c
INSERT INTO ad (who) VALUES ('s2') RETURNING id > 300500 AS above, id % 8 AS lo;
SELECT reserved_to - (SELECT max(id) FROM ad) + 1 AS ids_left_in_its_run
  FROM id_gen.hilo_keys WHERE table_name = 'ad'::regclass;

-- A fixed block size again: one block of max_lo ids per draw.
SELECT hilo_set_adaptive('ad', false);
\c
INSERT INTO ad (who) SELECT 's3' FROM generate_series(1, 20);
SELECT hilo_backend_draws('ad') AS draws;
-- A change of the table's default, like hilo_set_max_lo: ROLLBACK undoes it.
BEGIN;
SELECT hilo_set_adaptive('ad');
ROLLBACK;
SELECT adaptive FROM id_gen.hilo_keys WHERE table_name = 'ad'::regclass;
-- Changing the unit of an adaptive key moves the key as for any key.
SELECT hilo_set_max_lo('ad', 100);
\c
INSERT INTO ad (who) SELECT 's4' FROM generate_series(1, 100);
SELECT hilo_backend_draws('ad') AS draws;
SELECT count(*) = count(DISTINCT id) AS unique_ids, count(*) AS rows FROM ad;

-- A key made for a table with rows (id_gen.hilo_max_lo ids per block),
-- above them, then made adaptive.
CREATE TABLE ad_new (id bigint PRIMARY KEY);
INSERT INTO ad_new VALUES (5000);
SET id_gen.hilo_max_lo = 16;
ALTER TABLE ad_new ALTER COLUMN id SET DEFAULT hilo_next('ad_new');
RESET id_gen.hilo_max_lo;
SELECT hilo_set_adaptive('ad_new');
SELECT max_lo, adaptive FROM id_gen.hilo_keys WHERE table_name = 'ad_new'::regclass;
WITH i AS (INSERT INTO ad_new SELECT FROM generate_series(1, 40) RETURNING id)
SELECT min(id) > 5000 AS above, count(*) FROM i;

-- A bound key adapts too (the application's sequence, pooled_lo): a run is
-- a run of the application's values, which its next nextval() is above.
CREATE TABLE ad_bound (id bigint PRIMARY KEY DEFAULT hilo_next('ad_bound'));
CREATE SEQUENCE ad_bound_seq INCREMENT 10;
SELECT hilo_bind('ad_bound', 'ad_bound_seq', 'pooled_lo');
SELECT hilo_set_adaptive('ad_bound');
\c
INSERT INTO ad_bound SELECT FROM generate_series(1, 5);
SELECT max(id) AS max_id, nextval('ad_bound_seq') AS application_block FROM ad_bound;

-- Bad input and privileges: table owner only.
SELECT hilo_set_adaptive(NULL); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_adaptive('ad', NULL); \echo :LAST_ERROR_SQLSTATE
CREATE VIEW ad_v AS SELECT 1 AS id;
SELECT hilo_set_adaptive('ad_v'); \echo :LAST_ERROR_SQLSTATE
BEGIN READ ONLY;
SELECT hilo_set_adaptive('ad', false); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
CREATE ROLE regress_adaptive_writer;
GRANT INSERT ON ad TO regress_adaptive_writer;
SET ROLE regress_adaptive_writer;
SELECT hilo_set_adaptive('ad'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_backend_draws('ad') AS draws_before;
SELECT hilo_next('ad') > 0 AS writer_draws;
SELECT hilo_backend_draws('ad') AS draws_after;
RESET ROLE;
SELECT hilo_backend_draws(NULL) IS NULL AS strict;
DROP OWNED BY regress_adaptive_writer;
DROP ROLE regress_adaptive_writer;
