// id_gen's ids through node-postgres 8 (npm "pg"), the driver under
// Sequelize, TypeORM, Knex, Kysely and Drizzle.  Connects with the libpq
// environment (PGHOST, PGPORT, PGDATABASE, PGUSER).  Run by
// test/t/052_stacks.pl; docs/drivers.md quotes it.
'use strict';
const { Client, types } = require('pg');
const { check, run, SAFE } = require('./check');

run(async () => {
  const client = new Client();
  await client.connect();
  const q = async (sql, params) => (await client.query(sql, params)).rows;

  // 1. New tables: a uuid column with DEFAULT uuidv7_next().  No recipe:
  // uuid is a type every driver knows.
  await q('DROP TABLE IF EXISTS pg_orders');
  await q('CREATE TABLE pg_orders (id uuid PRIMARY KEY DEFAULT uuidv7_next(), n int)');
  const ids = (await q('INSERT INTO pg_orders (n) SELECT g FROM generate_series(1, 3) g RETURNING id')).map((r) => r.id);
  check('uuid DEFAULT uuidv7_next(): ids arrive as strings', ids.every((id) => /^[0-9a-f-]{36}$/.test(id)), JSON.stringify(ids));
  check('uuidv7_next(): the ids increase', ids[0] < ids[1] && ids[1] < ids[2], JSON.stringify(ids));
  let rows = await q('SELECT n FROM pg_orders WHERE id = $1', [ids[1]]);
  check('uuid: WHERE id = $1 with a string', rows.length === 1 && rows[0].n === 2, JSON.stringify(rows));
  rows = await q('SELECT array_agg(id ORDER BY id) AS a FROM pg_orders');
  check('uuid[]: arrives as an array of strings', Array.isArray(rows[0].a) && rows[0].a[2] === ids[2], JSON.stringify(rows));

  // 2. timeuuid columns: a timeuuid arrives as a string like a uuid, and a
  // string parameter is typed by the server from the column.
  await q('DROP TABLE IF EXISTS js_events');
  await q('CREATE TABLE js_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)');
  await q('INSERT INTO js_events (n) SELECT g FROM generate_series(1, 10) g');
  const fifth = (await q('SELECT id FROM js_events WHERE n = 5'))[0].id;
  check('a timeuuid arrives as a string, like a uuid', typeof fifth === 'string' && /^[0-9a-f-]{36}$/.test(fifth), String(fifth));
  rows = await q('SELECT n FROM js_events WHERE id = $1', [fifth]);
  check('timeuuid: WHERE id = $1 with a string', rows.length === 1 && rows[0].n === 5, JSON.stringify(rows));
  rows = await q('SELECT count(*)::int AS c FROM js_events WHERE id > $1::uuid', [fifth]);
  check('WHERE id > $1::uuid (time order)', rows[0].c === 5, JSON.stringify(rows));
  // Many ids at once: an array of strings as a uuid[] parameter, through the
  // timeuuid index (seqscan off: as on a big table).
  const some = (await q('SELECT id FROM js_events WHERE n IN (9, 2, 5) ORDER BY n DESC')).map((r) => r.id);
  await q('SET enable_seqscan = off');
  rows = await q('SELECT n FROM js_events WHERE id = ANY($1::uuid[]) ORDER BY id', [some]);
  await q('RESET enable_seqscan');
  check('WHERE id = ANY($1::uuid[]) with an array of strings, through the index',
        JSON.stringify(rows.map((r) => r.n)) === '[2,5,9]', JSON.stringify(rows));
  // A version 4 uuid compares (no timeuuid equals it); a timeuuid column
  // refuses it.
  rows = await q('SELECT count(*)::int AS c FROM js_events WHERE id = $1::uuid', ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']);
  check('a version 4 uuid parameter finds no row, without an error', rows[0].c === 0, JSON.stringify(rows));
  try {
    await q('INSERT INTO js_events (id, n) VALUES ($1::uuid, 0)', ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']);
    check('a version 4 uuid is refused by a timeuuid column', false, 'no error');
  } catch (e) {
    check('a version 4 uuid is refused by a timeuuid column', e.code === '22023', e.code);
  }
  // Arrays: node-postgres parses arrays by the array type's OID.
  const arr = 'SELECT array_agg(id ORDER BY n) AS ids FROM js_events WHERE n <= 2';
  rows = await q(arr);
  check('without the recipe a timeuuid[] arrives as an unparsed string', typeof rows[0].ids === 'string', typeof rows[0].ids);
  // The recipe: parse timeuuid[] as uuid[] is parsed.
  const oid = (await q("SELECT 'timeuuid[]'::regtype::oid AS o"))[0].o;
  types.setTypeParser(Number(oid), types.getTypeParser(2951)); // 2951: uuid[]
  rows = await q(arr);
  check('with setTypeParser a timeuuid[] arrives as an array of strings',
        Array.isArray(rows[0].ids) && rows[0].ids.length === 2 && typeof rows[0].ids[0] === 'string',
        JSON.stringify(rows[0].ids));

  // 3. bigint ids in JavaScript.  node-postgres hands int8 over as a string:
  // exact, whatever the value.
  await q('DROP TABLE IF EXISTS pg_big');
  await q('CREATE TABLE pg_big (snow bigint DEFAULT snowflake_next(), js bigint DEFAULT jsid_next())');
  await q('INSERT INTO pg_big SELECT FROM generate_series(1, 3)');
  const texts = await q('SELECT snow::text AS snow, js::text AS js FROM pg_big ORDER BY snow');
  const text = texts[0];
  let r = (await q('SELECT snow, js FROM pg_big ORDER BY snow'))[0];
  check('int8 arrives as a string: snowflake exact', r.snow === text.snow && BigInt(r.snow) > SAFE, r.snow);
  rows = await q('SELECT count(*)::int AS c FROM pg_big WHERE snow = $1', [r.snow]);
  check('a snowflake string parameter finds its row', rows[0].c === 1, JSON.stringify(rows));
  // Parsing int8 as BigInt: exact; bigint parameters are sent exactly too.
  types.setTypeParser(20, BigInt); // 20: int8
  r = (await q('SELECT snow, js FROM pg_big'))[0];
  check('setTypeParser(20, BigInt): snowflake exact', typeof r.snow === 'bigint' && r.snow === BigInt(text.snow), String(r.snow));
  rows = await q('SELECT count(*)::int AS c FROM pg_big WHERE snow = $1', [r.snow]);
  check('a BigInt parameter finds its row', rows[0].c === 1, JSON.stringify(rows));
  // Parsing int8 as a number: what many apps do, and it rounds snowflakes.
  // (Of three consecutive snowflakes at most one is a multiple of 256, the
  // spacing of numbers near 2^60.)
  types.setTypeParser(20, Number);
  rows = await q('SELECT snow, js FROM pg_big ORDER BY snow');
  check('setTypeParser(20, Number): snowflakes are rounded',
        rows.some((row, i) => BigInt(row.snow) !== BigInt(texts[i].snow)), JSON.stringify(rows));
  check('setTypeParser(20, Number): jsids stay exact',
        rows.every((row, i) => Number.isSafeInteger(row.js) && String(row.js) === texts[i].js), JSON.stringify(rows));
  // decimal_id() is below 2^53 while its counter is below 900,720 (then
  // rounds as a number), hilo_next() while the key's ids are: the same rule.
  await q('DROP TABLE IF EXISTS pg_dec');
  await q("CREATE TABLE pg_dec (id bigint DEFAULT decimal_id(), h bigint DEFAULT hilo_next('pg_dec'))");
  await q("SELECT hilo_create_key('pg_dec', 'h')");
  await q('INSERT INTO pg_dec DEFAULT VALUES');
  await q('SELECT id_gen.decimal_id_skip(1000000)'); // a test hook: the counter jumps ahead
  await q('INSERT INTO pg_dec SELECT FROM generate_series(1, 3)');
  const dec = await q('SELECT id, id::text AS t, h, h::text AS ht FROM pg_dec ORDER BY id');
  check('setTypeParser(20, Number): a decimal_id below 2^53 and hilo_next ids are exact',
        String(dec[0].id) === dec[0].t && dec.every((row) => String(row.h) === row.ht), JSON.stringify(dec));
  check('setTypeParser(20, Number): decimal_ids above 2^53 are rounded',
        dec.slice(1).every((row) => BigInt(row.t) > SAFE && String(row.id) !== row.t), JSON.stringify(dec));
  // pg_dec's Hi/Lo key is a sequence of the schema, as a serial's: drizzle-kit
  // push (later, in this database) would count it as a change to make.
  await q('DROP TABLE pg_dec');
  await client.end();
});
