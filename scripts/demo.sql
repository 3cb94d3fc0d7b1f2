-- scripts/demo.sql: what quickstart.sh shows once the extension is created.
\pset footer off

\echo '--- Hi/Lo keys: DEFAULT hilo_next(''orders''); each backend caches a block of max_lo keys'
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), item text);
INSERT INTO orders (item) VALUES ('apple'), ('pear'), ('plum');
TABLE orders;
SELECT * FROM id_gen.hilo_keys;

\echo '--- snowflake_next(): 41-bit ms | 10-bit worker id | 12-bit sequence'
CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_next(), what text);
INSERT INTO events (what) VALUES ('signup'), ('login');
SELECT id, (snowflake_decode(id)).* FROM events;

\echo '--- decimal_id(): counter * 10^10 + generator_id * 10^5 + launch_id'
SELECT id, (decimal_id_decode(id)).* FROM (SELECT decimal_id() AS id FROM generate_series(1, 3)) s;

\echo '--- timeuuid: a UUID type ordered by creation time; timeuuid_next() is RFC 9562 version 7'
CREATE TABLE docs (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), title text);
INSERT INTO docs (title) VALUES ('first'), ('second');
SELECT id, uuid_extract_version(id) AS version, timeuuid_timestamp(id) AS created, title FROM docs ORDER BY id;
SELECT timeuuid_v6() AS v6_from_libuuid, uuidv7() AS pg18_uuidv7;
