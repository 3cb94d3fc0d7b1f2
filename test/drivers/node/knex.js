// id_gen's ids through Knex 3 (on node-postgres).  Run by
// test/t/052_stacks.pl; docs/drivers.md quotes it.
'use strict';
const knexLib = require('knex');
const { check, run, SAFE } = require('./check');

run(async () => {
  const knex = knexLib({
    client: 'pg',
    connection: { host: process.env.PGHOST, port: process.env.PGPORT, user: process.env.PGUSER, database: process.env.PGDATABASE },
  });
  await knex.raw('DROP TABLE IF EXISTS kx_items, kx_orders, kx_events, kx_big');

  // 1. New tables: uuid DEFAULT uuidv7_next(), in a migration's createTable.
  await knex.schema.createTable('kx_orders', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('uuidv7_next()'));
    t.integer('n');
  });
  await knex.schema.createTable('kx_items', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('uuidv7_next()'));
    t.uuid('order_id').references('kx_orders.id');
  });
  const [order] = await knex('kx_orders').insert({ n: 1 }).returning('id');
  check('insert().returning(): the uuidv7_next() id', /^[0-9a-f-]{36}$/.test(order.id), JSON.stringify(order));
  await knex('kx_items').insert([{ order_id: order.id }, { order_id: order.id }]);
  const items = await knex('kx_items').join('kx_orders', 'kx_orders.id', 'kx_items.order_id').where('kx_orders.id', order.id);
  check('join by the uuid foreign key', items.length === 2, JSON.stringify(items));

  // 2. timeuuid columns: specificType(); values are strings.
  await knex.schema.createTable('kx_events', (t) => {
    t.specificType('id', 'timeuuid').primary().defaultTo(knex.raw('timeuuid_next()'));
    t.integer('n');
  });
  const [e1] = await knex('kx_events').insert({ n: 1 }).returning('id');
  const [e2] = await knex('kx_events').insert({ n: 2 }).returning('id');
  check('timeuuid: the id arrives as a string', /^[0-9a-f-]{36}$/.test(e1.id), JSON.stringify(e1));
  const back = await knex('kx_events').where({ id: e2.id }).first();
  check('timeuuid: where({ id })', back && back.n === 2, JSON.stringify(back));
  const [{ c }] = await knex('kx_events').where('id', '>', e1.id).count('* as c');
  check('timeuuid: where id > (time order)', Number(c) === 1, String(c));
  // Many ids at once: an array as one uuid[] parameter, through the timeuuid
  // index (seqscan off in the transaction: as on a big table).
  const many = await knex.transaction(async (trx) => {
    await trx.raw('SET LOCAL enable_seqscan = off');
    return trx('kx_events').whereRaw('id = ANY(?::uuid[])', [[e2.id, e1.id]]).orderBy('id').pluck('n');
  });
  check('timeuuid: whereRaw(id = ANY(?::uuid[])) with an array, through the index',
        JSON.stringify(many) === '[1,2]', JSON.stringify(many));

  // 3. bigint: strings (exact), as node-postgres gives them.
  await knex.schema.createTable('kx_big', (t) => {
    t.bigInteger('id').primary().defaultTo(knex.raw('snowflake_next()'));
    t.integer('n');
  });
  const [big] = await knex('kx_big').insert({ n: 1 }).returning('id');
  const text = (await knex.raw('SELECT id::text AS id FROM kx_big')).rows[0].id;
  check('bigint snowflake: returning() gives the exact string', big.id === text && BigInt(big.id) > SAFE, `${big.id} vs ${text}`);
  const big2 = await knex('kx_big').where({ id: big.id }).first();
  check('bigint snowflake: where({ id: string }) exact', big2 && big2.id === text, JSON.stringify(big2));
  await knex.destroy();
});
