// id_gen's ids through Drizzle ORM (on node-postgres).  Run by
// test/t/052_stacks.pl; docs/drivers.md quotes it.
'use strict';
const { pgTable, bigint } = require('drizzle-orm/pg-core');
const { drizzle } = require('drizzle-orm/node-postgres');
const { sql, eq, gt, count } = require('drizzle-orm');
const { Pool } = require('pg');
const { check, run, SAFE } = require('./check');

const schema = require('./drizzle-schema');
const { orders, items, events, parents, children, jsids } = schema;
// The same table, its id read as a JavaScript number (rounds snowflakes).
const childrenAsNumbers = pgTable('dz_children', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
});

run(async () => {
  const pool = new Pool();
  const db = drizzle(pool, { schema });
  await db.execute(sql`DROP TABLE IF EXISTS dz_items, dz_orders, dz_events, dz_children, dz_parents, dz_jsids`);
  await db.execute(sql`CREATE TABLE dz_orders (id uuid PRIMARY KEY DEFAULT uuidv7_next(), n int)`);
  await db.execute(sql`CREATE TABLE dz_items (id uuid PRIMARY KEY DEFAULT uuidv7_next(), order_id uuid REFERENCES dz_orders)`);
  await db.execute(sql`CREATE TABLE dz_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)`);
  await db.execute(sql`CREATE TABLE dz_parents (id bigint PRIMARY KEY DEFAULT snowflake_next())`);
  await db.execute(sql`CREATE TABLE dz_children (id bigint PRIMARY KEY DEFAULT snowflake_next(), parent_id bigint REFERENCES dz_parents)`);
  await db.execute(sql`CREATE TABLE dz_jsids (id bigint PRIMARY KEY DEFAULT jsid_next())`);

  const [order] = await db.insert(orders).values({ n: 1 }).returning();
  check('insert().returning(): the uuidv7_next() id', /^[0-9a-f-]{36}$/.test(order.id), JSON.stringify(order));
  await db.insert(items).values([{ orderId: order.id }, { orderId: order.id }]);
  const found = await db.query.orders.findFirst({ where: eq(orders.id, order.id), with: { items: true } });
  check('relational query: the uuid children', found && found.items.length === 2 && found.items.every((i) => i.orderId === order.id),
        JSON.stringify(found));

  const [e1] = await db.insert(events).values({ n: 1 }).returning();
  const [e2] = await db.insert(events).values({ n: 2 }).returning();
  check('timeuuid: the id arrives as a string', /^[0-9a-f-]{36}$/.test(e1.id), JSON.stringify(e1));
  const [back] = await db.select().from(events).where(eq(events.id, e2.id));
  check('timeuuid: where eq(id, string)', back && back.n === 2, JSON.stringify(back));
  const [later] = await db.select({ c: count() }).from(events).where(gt(events.id, e1.id));
  check('timeuuid: where gt (time order, server side)', later.c === 1, JSON.stringify(later));
  // Many ids at once: an array as one uuid[] parameter (sql.param: an array
  // in sql`` is a list otherwise), through the timeuuid index (seqscan off
  // in the transaction: as on a big table).
  const many = await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL enable_seqscan = off`);
    return tx.select({ n: events.n }).from(events)
      .where(sql`${events.id} = any(${sql.param([e2.id, e1.id])}::uuid[])`).orderBy(events.id);
  });
  check('timeuuid: sql`id = any(${sql.param(array)}::uuid[])`, through the index',
        JSON.stringify(many.map((r) => r.n)) === '[1,2]', JSON.stringify(many));

  // bigint: select and insert ... returning with mode 'bigint' are exact.
  const [parent] = await db.insert(parents).values({}).returning();
  const kids = await db.insert(children).values([{ parentId: parent.id }, { parentId: parent.id }, { parentId: parent.id }]).returning();
  const { rows: texts } = await db.execute(sql`SELECT id::text AS id FROM dz_children ORDER BY id`);
  const exact = texts.map((r) => r.id);
  check("mode 'bigint': returning() exact", kids.map((k) => String(k.id)).sort().join() === exact.join() && kids[0].id > SAFE,
        JSON.stringify(kids.map(String)));
  const selected = await db.select().from(children).orderBy(children.id);
  check("mode 'bigint': select() exact", selected.map((k) => String(k.id)).join() === exact.join(), selected.map((k) => String(k.id)).join());
  // Relational queries (db.query ... with) build JSON in the server, and
  // JSON.parse() rounds numbers above 2^53 whatever the column's mode.
  const tree = await db.query.parents.findFirst({ with: { children: true } });
  const treeIds = tree.children.map((k) => String(k.id)).sort();
  check("relational query 'with': snowflakes come back rounded (known limit: select() and joins instead)",
        treeIds.join() !== exact.join(), treeIds.join());
  const joined = await db.select().from(parents).innerJoin(children, eq(children.parentId, parents.id)).orderBy(children.id);
  check('select() with innerJoin: the snowflake children exact', joined.map((r) => String(r.dz_children.id)).join() === exact.join(),
        joined.map((r) => String(r.dz_children.id)).join());
  const asNumbers = await db.select().from(childrenAsNumbers).orderBy(childrenAsNumbers.id);
  check("mode 'number': snowflakes are rounded", asNumbers.some((k, i) => BigInt(k.id) !== BigInt(exact[i])), JSON.stringify(asNumbers));
  // jsid_next() stays below 2^53: mode 'number' is exact.
  await db.insert(jsids).values([{}, {}, {}]);
  const js = await db.select().from(jsids).orderBy(jsids.id);
  const { rows: jsTexts } = await db.execute(sql`SELECT id::text AS id FROM dz_jsids ORDER BY id`);
  check("jsid with mode 'number': exact", js.every((r, i) => Number.isSafeInteger(r.id) && String(r.id) === jsTexts[i].id), JSON.stringify(js));
  await pool.end();
});
