// timeuuid through node-postgres 8 (npm "pg").  Connects with the libpq
// environment (PGHOST, PGPORT, PGDATABASE); prints one "ok <check>" or
// "not ok <check>: <why>" line per check.  Run by test/t/050_drivers.pl.
'use strict';
const { Client, types } = require('pg');

let failed = false;
function check(name, cond, why) {
  console.log((cond ? 'ok ' : 'not ok ') + name + (cond ? '' : ': ' + why));
  if (!cond) failed = true;
}

(async () => {
  const client = new Client();
  await client.connect();
  await client.query('DROP TABLE IF EXISTS js_events');
  await client.query('CREATE TABLE js_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)');
  await client.query('INSERT INTO js_events (n) SELECT g FROM generate_series(1, 10) g');
  const fifth = (await client.query('SELECT id FROM js_events WHERE n = 5')).rows[0].id;
  check('a timeuuid arrives as a string, like a uuid', typeof fifth === 'string' && /^[0-9a-f-]{36}$/.test(fifth), String(fifth));

  // Parameters typed as uuid ($1::uuid) compare with timeuuid.
  let r = await client.query('SELECT n FROM js_events WHERE id = $1::uuid', [fifth]);
  check('WHERE id = $1::uuid', r.rows.length === 1 && r.rows[0].n === 5, JSON.stringify(r.rows));
  r = await client.query('SELECT count(*)::int AS c FROM js_events WHERE id > $1::uuid', [fifth]);
  check('WHERE id > $1::uuid (time order)', r.rows[0].c === 5, JSON.stringify(r.rows));
  try {
    await client.query('SELECT 1 FROM js_events WHERE id = $1::uuid', ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']);
    check('a version 4 uuid is refused', false, 'no error');
  } catch (e) {
    check('a version 4 uuid is refused', e.code === '22023', e.code);
  }

  // Arrays: node-postgres parses arrays by the array type's OID.
  const q = 'SELECT array_agg(id ORDER BY n) AS ids FROM js_events WHERE n <= 2';
  r = await client.query(q);
  check('without the recipe a timeuuid[] arrives as an unparsed string', typeof r.rows[0].ids === 'string', typeof r.rows[0].ids);
  // The recipe: parse timeuuid[] as uuid[] is parsed.
  const oid = (await client.query("SELECT 'timeuuid[]'::regtype::oid AS o")).rows[0].o;
  types.setTypeParser(Number(oid), types.getTypeParser(2951)); // 2951: uuid[]
  r = await client.query(q);
  check('with setTypeParser a timeuuid[] arrives as an array of strings',
        Array.isArray(r.rows[0].ids) && r.rows[0].ids.length === 2 && typeof r.rows[0].ids[0] === 'string',
        JSON.stringify(r.rows[0].ids));
  await client.end();
  process.exit(failed ? 1 : 0);
})().catch((e) => { console.log('not ok node-postgres run: ' + e.message); process.exit(1); });
