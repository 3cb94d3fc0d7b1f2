// id_gen's ids through TypeORM (on node-postgres), entities as EntitySchema
// (plain JavaScript; decorators map to the same options).  Run by
// test/t/052_stacks.pl; docs/drivers.md quotes it.
'use strict';
require('reflect-metadata');
const { DataSource, EntitySchema, MoreThan } = require('typeorm');
const { check, run, SAFE } = require('./check');

// 1. New tables: uuid DEFAULT uuidv7_next().
const Order = new EntitySchema({
  name: 'Order', tableName: 'to_orders',
  columns: {
    id: { type: 'uuid', primary: true, default: () => 'uuidv7_next()' },
    n: { type: 'int' },
  },
  relations: { items: { type: 'one-to-many', target: 'Item', inverseSide: 'order' } },
});
const Item = new EntitySchema({
  name: 'Item', tableName: 'to_items',
  columns: { id: { type: 'uuid', primary: true, default: () => 'uuidv7_next()' } },
  relations: { order: { type: 'many-to-one', target: 'Order', joinColumn: { name: 'order_id' } } },
});

// 2. A timeuuid column, declared uuid: TypeORM knows no timeuuid type.
// synchronize: false keeps schema sync away from this table (without it,
// sync would drop the column and add a uuid one: see the check below).
function eventSchema(synchronize) {
  return new EntitySchema({
    name: 'Event', tableName: 'to_events', synchronize,
    columns: {
      id: { type: 'uuid', primary: true, default: () => 'timeuuid_next()' },
      n: { type: 'int' },
    },
  });
}

// 3. bigint: TypeORM reads bigint columns as strings (exact).
const Big = new EntitySchema({
  name: 'Big', tableName: 'to_big',
  columns: { id: { type: 'bigint', primary: true, default: () => 'snowflake_next()' }, n: { type: 'int' } },
});

// 4. A Hi/Lo key: DEFAULT hilo_next('to_tickets'), its sequence made once by
// hilo_create_key() (a migration's step); synchronize leaves both alone.
const Ticket = new EntitySchema({
  name: 'Ticket', tableName: 'to_tickets',
  columns: { id: { type: 'bigint', primary: true, default: () => "hilo_next('to_tickets')" }, n: { type: 'int' } },
});

function dataSource(entities, synchronize) {
  return new DataSource({
    type: 'postgres', host: process.env.PGHOST, port: Number(process.env.PGPORT),
    username: process.env.PGUSER, database: process.env.PGDATABASE, entities, synchronize,
  });
}

run(async () => {
  let ds = dataSource([], false);
  await ds.initialize();
  await ds.query('DROP TABLE IF EXISTS to_items, to_orders, to_events, to_big, to_tickets');
  await ds.query('CREATE TABLE to_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)');
  await ds.destroy();

  ds = dataSource([Order, Item, eventSchema(false), Big], true);
  await ds.initialize(); // synchronize: creates to_orders, to_items, to_big
  const pending = (await ds.driver.createSchemaBuilder().log()).upQueries.map((x) => x.query);
  check('synchronize: nothing left to change after the first run (uuidv7_next() default is stable)',
        pending.length === 0, JSON.stringify(pending));
  const type = (await ds.query("SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'to_events'::regclass AND attname = 'id'"))[0].t;
  check('synchronize: false entity: the timeuuid column is untouched', type === 'timeuuid', type);

  const orders = ds.getRepository('Order');
  const order = await orders.save({ n: 1 });
  check('save(): the uuidv7_next() id comes back', /^[0-9a-f-]{36}$/.test(order.id), JSON.stringify(order));
  await ds.getRepository('Item').save([{ order }, { order }]);
  const found = await orders.findOne({ where: { id: order.id }, relations: { items: true } });
  check('findOne() with relations: the children by foreign key', found && found.items.length === 2, JSON.stringify(found));

  const events = ds.getRepository('Event');
  const e1 = await events.save({ n: 1 });
  const e2 = await events.save({ n: 2 });
  check('timeuuid: save() returns the id as a string', /^[0-9a-f-]{36}$/.test(e1.id), JSON.stringify(e1));
  const back = await events.findOneBy({ id: e2.id });
  check('timeuuid: findOneBy(id)', back && back.n === 2, JSON.stringify(back));
  check('timeuuid: MoreThan (time order)', (await events.countBy({ id: MoreThan(e1.id) })) === 1, 'count');
  // Many ids at once: an array as one uuid[] parameter, through the timeuuid
  // index (seqscan off in the transaction: as on a big table).
  const many = await ds.transaction(async (manager) => {
    await manager.query('SET LOCAL enable_seqscan = off');
    return manager.getRepository('Event').createQueryBuilder('e').select('e.n', 'n')
      .where('e.id = ANY(CAST(:ids AS uuid[]))', { ids: [e2.id, e1.id] }).orderBy('e.id').getRawMany();
  });
  check('timeuuid: e.id = ANY(CAST(:ids AS uuid[])) with an array, through the index',
        JSON.stringify(many.map((r) => r.n)) === '[1,2]', JSON.stringify(many));

  const big = await ds.getRepository('Big').save({ n: 1 });
  const text = (await ds.query('SELECT id::text AS id FROM to_big'))[0].id;
  check('bigint snowflake: save() returns the exact string', big.id === text && BigInt(big.id) > SAFE, `${big.id} vs ${text}`);
  const big2 = await ds.getRepository('Big').findOneBy({ id: text });
  check('bigint snowflake: findOneBy(string) exact', big2 && big2.id === text, JSON.stringify(big2));
  await ds.destroy();

  // Hi/Lo: synchronize creates the table, the key is made once; every later
  // synchronize finds nothing to change (the default is what the entity says).
  ds = dataSource([Ticket], true);
  await ds.initialize();
  await ds.query("SELECT hilo_create_key('to_tickets')");
  const tickets = await ds.getRepository('Ticket').save([{ n: 1 }, { n: 2 }]);
  check('hilo: save() returns the hilo_next() ids', tickets.map((t) => String(t.id)).join(',') === '1,2', JSON.stringify(tickets));
  await ds.destroy();
  ds = dataSource([Ticket], true);
  await ds.initialize(); // synchronize again
  const hiloPending = (await ds.driver.createSchemaBuilder().log()).upQueries.map((x) => x.query);
  check('hilo: synchronize again: nothing to change', hiloPending.length === 0, JSON.stringify(hiloPending));
  const after = await ds.getRepository('Ticket').save({ n: 3 });
  check('hilo: the key goes on after synchronize', BigInt(after.id) > 2n, JSON.stringify(after));
  // The key is a sequence of the schema, as a serial's: drizzle-kit push
  // (later, in this database) would count it as a change to make.
  await ds.query('DROP TABLE to_tickets');
  await ds.destroy();

  // Why 'uuid': TypeORM refuses a column type it does not know.
  ds = dataSource([new EntitySchema({ name: 'Raw', tableName: 'to_events', columns: { id: { type: 'timeuuid', primary: true } } })], false);
  try {
    await ds.initialize();
    check("type: 'timeuuid' is refused", false, 'accepted');
    await ds.destroy();
  } catch (e) {
    check("type: 'timeuuid' is refused (DataTypeNotSupportedError)", e.name === 'DataTypeNotSupportedError', e.name + ': ' + e.message);
  }

  // The trap: the same timeuuid entity without synchronize: false.
  ds = dataSource([eventSchema(true)], false);
  await ds.initialize();
  const plan = (await ds.driver.createSchemaBuilder().log()).upQueries.map((x) => x.query).join('; ');
  check('without synchronize: false, sync would DROP the timeuuid column', /DROP COLUMN "id"/.test(plan), plan);
  await ds.destroy();
});
