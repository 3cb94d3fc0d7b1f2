-- scripts/demo.sql: what quickstart.sh shows once the extension is created.
\pset footer off

\echo '--- Hi/Lo keys: DEFAULT hilo_next(''orders'') and its sequence, made as a serial''s; each session numbers a block of INCREMENT BY ids'
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), item text);
SELECT hilo_create_key('orders');
INSERT INTO orders (item) VALUES ('apple'), ('pear'), ('plum');
TABLE orders;
SELECT * FROM id_gen.hilo_keys;

\echo '--- snowflake_next(): 41-bit ms | 10-bit worker id | 12-bit sequence'
CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_next(), what text);
INSERT INTO events (what) VALUES ('signup'), ('login');
SELECT id, (snowflake_decode(id)).* FROM events;

\echo '--- decimal_id(): counter * 10^10 + generator_id * 10^5 + launch_id'
SELECT id, (decimal_id_decode(id)).* FROM (SELECT decimal_id() AS id FROM generate_series(1, 3)) s;

\echo '--- uuidv7_next(): version 7 uuids, strictly increasing across the server, for plain uuid columns'
SELECT uuidv7_next() AS a, uuidv7_next() AS b;

\echo '--- timeuuid: a UUID type ordered by creation time; timeuuid_next() is RFC 9562 version 7'
CREATE TABLE docs (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), title text);
INSERT INTO docs (title) VALUES ('first'), ('second');
SELECT id, uuid_extract_version(id) AS version, timeuuid_timestamp(id) AS created, title FROM docs ORDER BY id;
SELECT timeuuid_v6() AS v6_from_libuuid;

\echo '--- id_encode(): public ids that hide order and volume'
SELECT id, id_encode(id, 'demo key') AS public_id FROM orders ORDER BY id;

\echo '--- id_gen.headroom: how close each generator is to running out'
SELECT generator, object, status FROM id_gen.headroom ORDER BY 1, 2;
