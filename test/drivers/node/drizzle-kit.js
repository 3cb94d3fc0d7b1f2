// drizzle-kit push and pull against the test server, with the schema of
// drizzle-schema.js.  Run by test/t/052_stacks.pl; docs/drivers.md quotes it.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client } = require('pg');
const { check, run } = require('./check');

const kit = path.join(__dirname, 'node_modules', '.bin', 'drizzle-kit');
const url = `postgresql://${process.env.PGUSER}@localhost:${process.env.PGPORT}/${process.env.PGDATABASE}`;
const drizzleKit = (...args) => execFileSync(kit, [...args, '--dialect=postgresql', `--url=${url}`, '--tablesFilter=dz_*'],
  { cwd: __dirname, encoding: 'utf8', timeout: 60000, stdio: ['ignore', 'pipe', 'pipe'] });

run(async () => {
  const client = new Client();
  await client.connect();
  await client.query('DROP TABLE IF EXISTS dz_items, dz_orders, dz_events, dz_children, dz_parents, dz_jsids, dz_tickets');

  // push creates the tables; the ids' types and defaults are as declared.
  drizzleKit('push', '--schema=./drizzle-schema.js', '--strict=false');
  const { rows } = await client.query(`SELECT attrelid::regclass::text AS t, format_type(atttypid, atttypmod) AS type,
      pg_get_expr(adbin, adrelid) AS def FROM pg_attribute JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
      WHERE attrelid IN ('dz_orders'::regclass, 'dz_events'::regclass, 'dz_children'::regclass) ORDER BY 1`);
  check('push: uuid DEFAULT uuidv7_next(), timeuuid DEFAULT timeuuid_next(), bigint DEFAULT snowflake_next()',
        JSON.stringify(rows) === JSON.stringify([
          { t: 'dz_children', type: 'bigint', def: 'snowflake_next()' },
          { t: 'dz_events', type: 'timeuuid', def: 'timeuuid_next()' },
          { t: 'dz_orders', type: 'uuid', def: 'uuidv7_next()' }]), JSON.stringify(rows));
  // The Hi/Lo key's sequence, made once after the push that made its table.
  await client.query("SELECT hilo_create_key('dz_tickets')");
  // A second push finds nothing to change: the timeuuid customType is
  // stable, and so is the Hi/Lo default with its owned sequence.
  const again = drizzleKit('push', '--schema=./drizzle-schema.js', '--strict=false');
  check('push again: no changes detected', /No changes detected/.test(again), again);
  const hilo = await client.query("INSERT INTO dz_tickets (n) VALUES (1), (2) RETURNING id");
  check('hilo: ids from the key after push', hilo.rows.map((r) => r.id).join(',') === '1,2', JSON.stringify(hilo.rows));

  // pull writes a TypeScript schema from the database.
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'drizzle-pull-'));
  drizzleKit('pull', `--out=${out}`);
  const ts = fs.readFileSync(path.join(out, 'schema.ts'), 'utf8');
  check('pull: a uuid id keeps its uuidv7_next() default', /id: uuid\(\)\.default\(sql`uuidv7_next\(\)`\)/.test(ts), ts);
  // Known limits of pull, to fix by hand in the pulled file: a timeuuid
  // column comes out as time(), which is not even imported (use the
  // customType above), and every bigint as { mode: "number" }, which
  // rounds snowflakes (use { mode: "bigint" }).
  check('pull: a timeuuid column comes out as an unimported time() (fix by hand)',
        /id: time\(\)\.default\(sql`timeuuid_next\(\)`\)/.test(ts) && !/import \{[^}]*\btime\b[^}]*\}/.test(ts), ts);
  check('pull: a snowflake column comes out as bigint({ mode: "number" }) (change to "bigint")',
        /id: bigint\(\{ mode: "number" \}\)\.default\(sql`snowflake_next\(\)`\)/.test(ts), ts);
  fs.rmSync(out, { recursive: true });
  await client.end();
});
