// id_gen's ids through Sequelize 6 (on node-postgres).  Run by
// test/t/052_stacks.pl; docs/drivers.md quotes it.
'use strict';
const { Sequelize, DataTypes } = require('sequelize');
const { check, run, SAFE } = require('./check');

run(async () => {
  const sequelize = new Sequelize(process.env.PGDATABASE, process.env.PGUSER, null, {
    dialect: 'postgres', host: process.env.PGHOST, port: process.env.PGPORT, logging: false,
  });
  await sequelize.query('DROP TABLE IF EXISTS sq_items, sq_orders, sq_events, sq_big');

  // 1. New tables: uuid DEFAULT uuidv7_next(); the model says UUID and
  // lets the database fill it in (a defaultValue of literal()).
  const Order = sequelize.define('Order', {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: sequelize.literal('uuidv7_next()') },
    n: DataTypes.INTEGER,
  }, { tableName: 'sq_orders', timestamps: false });
  const Item = sequelize.define('Item', {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: sequelize.literal('uuidv7_next()') },
  }, { tableName: 'sq_items', timestamps: false });
  Order.hasMany(Item, { foreignKey: 'orderId' });
  await sequelize.sync();
  const def = (await sequelize.query(
    "SELECT pg_get_expr(adbin, adrelid) AS d FROM pg_attrdef WHERE adrelid = 'sq_orders'::regclass",
    { type: Sequelize.QueryTypes.SELECT }))[0];
  check('sync() creates uuid DEFAULT uuidv7_next()', def && def.d === 'uuidv7_next()', JSON.stringify(def));
  const order = await Order.create({ n: 1 });
  check('create(): the uuidv7_next() id comes back', /^[0-9a-f-]{36}$/.test(order.id), String(order.id));
  await Item.bulkCreate([{ orderId: order.id }, { orderId: order.id }]);
  const found = await Order.findByPk(order.id, { include: Item });
  check('findByPk() with include: the children by foreign key', found && found.Items.length === 2, JSON.stringify(found));

  // 2. timeuuid columns: declare them DataTypes.UUID; values are strings.
  await sequelize.query('CREATE TABLE sq_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)');
  const Event = sequelize.define('Event', {
    id: { type: DataTypes.UUID, primaryKey: true, defaultValue: sequelize.literal('timeuuid_next()') },
    n: DataTypes.INTEGER,
  }, { tableName: 'sq_events', timestamps: false });
  await Event.sync({ alter: true });
  const type = (await sequelize.query(
    "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'sq_events'::regclass AND attname = 'id'",
    { type: Sequelize.QueryTypes.SELECT }))[0].t;
  check('timeuuid: sync({ alter: true }) leaves the primary key timeuuid', type === 'timeuuid', type);
  const e1 = await Event.create({ n: 1 });
  const e2 = await Event.create({ n: 2 });
  check('timeuuid: create() returns the id as a string', /^[0-9a-f-]{36}$/.test(e1.id), String(e1.id));
  const back = await Event.findByPk(e2.id);
  check('timeuuid: findByPk(string)', back && back.n === 2, JSON.stringify(back));
  const later = await Event.count({ where: { id: { [Sequelize.Op.gt]: e1.id } } });
  check('timeuuid: where id > (time order)', later === 1, String(later));
  // Many ids at once: an array as a uuid[] bind parameter, through the
  // timeuuid index (seqscan off in the transaction: as on a big table).
  const many = await sequelize.transaction(async (transaction) => {
    await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
    return sequelize.query('SELECT n FROM sq_events WHERE id = ANY($1::uuid[]) ORDER BY id',
      { bind: [[e2.id, e1.id]], type: Sequelize.QueryTypes.SELECT, transaction });
  });
  check('timeuuid: WHERE id = ANY($1::uuid[]) with an array, through the index',
        JSON.stringify(many.map((r) => r.n)) === '[1,2]', JSON.stringify(many));

  // 3. bigint: Sequelize reads BIGINT as a string (exact); keep it so.
  const Big = sequelize.define('Big', {
    id: { type: DataTypes.BIGINT, primaryKey: true, defaultValue: sequelize.literal('snowflake_next()') },
    js: { type: DataTypes.BIGINT, defaultValue: sequelize.literal('jsid_next()') },
  }, { tableName: 'sq_big', timestamps: false });
  await Big.sync();
  const b = await Big.create({});
  const text = (await sequelize.query('SELECT id::text AS id FROM sq_big', { type: Sequelize.QueryTypes.SELECT }))[0].id;
  check('BIGINT snowflake: create() returns the exact string', b.id === text && BigInt(b.id) > SAFE, `${b.id} vs ${text}`);
  const b2 = await Big.findByPk(text);
  check('BIGINT snowflake: findByPk(string) exact', b2 && b2.id === text, JSON.stringify(b2));
  await sequelize.close();
});
