// id_gen's ids through Kysely (on node-postgres).  Run by
// test/t/052_stacks.pl; docs/drivers.md quotes it.
'use strict';
const { Kysely, PostgresDialect, sql } = require('kysely');
const { Pool } = require('pg');
const { check, run, SAFE } = require('./check');

run(async () => {
  const db = new Kysely({ dialect: new PostgresDialect({ pool: new Pool() }) });
  await sql`DROP TABLE IF EXISTS ky_items, ky_orders, ky_events, ky_big`.execute(db);

  // 1. New tables: uuid DEFAULT uuidv7_next().
  await db.schema.createTable('ky_orders')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`uuidv7_next()`))
    .addColumn('n', 'integer').execute();
  await db.schema.createTable('ky_items')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`uuidv7_next()`))
    .addColumn('order_id', 'uuid', (c) => c.references('ky_orders.id')).execute();
  const order = await db.insertInto('ky_orders').values({ n: 1 }).returning('id').executeTakeFirstOrThrow();
  check('insertInto().returning(): the uuidv7_next() id', /^[0-9a-f-]{36}$/.test(order.id), JSON.stringify(order));
  await db.insertInto('ky_items').values([{ order_id: order.id }, { order_id: order.id }]).execute();
  const items = await db.selectFrom('ky_items').innerJoin('ky_orders', 'ky_orders.id', 'ky_items.order_id')
    .select('ky_items.id').where('ky_orders.id', '=', order.id).execute();
  check('join by the uuid foreign key', items.length === 2, JSON.stringify(items));

  // 2. timeuuid columns: sql`timeuuid` as the column type; values are strings.
  await db.schema.createTable('ky_events')
    .addColumn('id', sql`timeuuid`, (c) => c.primaryKey().defaultTo(sql`timeuuid_next()`))
    .addColumn('n', 'integer').execute();
  const e1 = await db.insertInto('ky_events').values({ n: 1 }).returning('id').executeTakeFirstOrThrow();
  const e2 = await db.insertInto('ky_events').values({ n: 2 }).returning('id').executeTakeFirstOrThrow();
  check('timeuuid: the id arrives as a string', /^[0-9a-f-]{36}$/.test(e1.id), JSON.stringify(e1));
  const back = await db.selectFrom('ky_events').selectAll().where('id', '=', e2.id).executeTakeFirst();
  check('timeuuid: where id = string', back && back.n === 2, JSON.stringify(back));
  const later = await db.selectFrom('ky_events').select((eb) => eb.fn.countAll().as('c')).where('id', '>', e1.id).executeTakeFirst();
  check('timeuuid: where id > (time order)', Number(later.c) === 1, JSON.stringify(later));
  // Many ids at once: an array as one uuid[] parameter, through the timeuuid
  // index (seqscan off in the transaction: as on a big table).
  const many = await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    return trx.selectFrom('ky_events').select('n').where(sql`id = any(${[e2.id, e1.id]}::uuid[])`).orderBy('id').execute();
  });
  check('timeuuid: where id = any(${array}::uuid[]), through the index',
        JSON.stringify(many.map((r) => r.n)) === '[1,2]', JSON.stringify(many));

  // 3. bigint: strings (exact), as node-postgres gives them.
  await db.schema.createTable('ky_big')
    .addColumn('id', 'bigint', (c) => c.primaryKey().defaultTo(sql`snowflake_next()`))
    .addColumn('n', 'integer').execute();
  const big = await db.insertInto('ky_big').values({ n: 1 }).returning('id').executeTakeFirstOrThrow();
  const { rows: [{ id: text }] } = await sql`SELECT id::text AS id FROM ky_big`.execute(db);
  check('bigint snowflake: returning() gives the exact string', big.id === text && BigInt(big.id) > SAFE, `${big.id} vs ${text}`);
  const big2 = await db.selectFrom('ky_big').selectAll().where('id', '=', big.id).executeTakeFirst();
  check('bigint snowflake: where id = string exact', big2 && big2.id === text, JSON.stringify(big2));
  await db.destroy();
});
