-- 06: setval() does not drop the block of the session that runs it (nextval() drops the calling
--     session's cache in setval: a serial's values come above the setval at once). The documented
--     "step over ids loaded with explicit values" recipe, run in one migration session, hands out
--     the loaded ids again.
-- Severity: MEDIUM (duplicates / 23505 on the documented recipe; docs only warn about *other*
--     sessions' blocks, "as cached serial values do", and show "a new session" in the example).
-- Expected (as for a serial with any CACHE): 'after' rows get 21..30.  Actual: 3, 4, ..., 10 -> 23505.
CREATE TABLE ss (id bigint PRIMARY KEY DEFAULT hilo_next('ss'), v text);
SELECT hilo_create_key('ss', max_lo => 1000);
INSERT INTO ss(v) VALUES ('a'), ('b');                         -- 1 (START), 2 (session holds 3..1001)
INSERT INTO ss SELECT g, 'loaded' FROM generate_series(10, 20) g;
SELECT setval(pg_get_serial_sequence('ss', 'id'), max(id)) FROM ss;   -- 20
INSERT INTO ss(v) SELECT 'after' FROM generate_series(1, 10);  -- ERROR 23505 Key (id)=(10) already exists
-- Same with setval(seq, n, false) and ALTER SEQUENCE ... RESTART is fine (new relfilenode), so the
-- three "next id is n" forms in the docs' table do not behave alike.

-- The "say the next id is n" row of docs/hilo.md, in the session that holds a block:
CREATE TABLE sf (id bigint PRIMARY KEY DEFAULT hilo_next('sf'), v text);
SELECT hilo_create_key('sf', max_lo => 1000);
INSERT INTO sf(v) VALUES ('a'), ('b');
SELECT setval('sf_id_seq', 5000, false);
INSERT INTO sf(v) VALUES ('c') RETURNING id;   -- 3 (expected 5000, as nextval() gives after setval)
