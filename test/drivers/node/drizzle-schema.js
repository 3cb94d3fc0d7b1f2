// The Drizzle schema of test/drivers/node/drizzle.js, in a file of its own
// for drizzle-kit push (run by test/t/052_stacks.pl against the test server).
'use strict';
const { pgTable, uuid, integer, bigint, customType } = require('drizzle-orm/pg-core');
const { relations, sql } = require('drizzle-orm');

// 1. New tables: uuid DEFAULT uuidv7_next().
const orders = pgTable('dz_orders', {
  id: uuid('id').primaryKey().default(sql`uuidv7_next()`),
  n: integer('n'),
});
const items = pgTable('dz_items', {
  id: uuid('id').primaryKey().default(sql`uuidv7_next()`),
  orderId: uuid('order_id').references(() => orders.id),
});

// 2. timeuuid columns: a customType, read and written as strings.
const timeuuid = customType({ dataType: () => 'timeuuid' });
const events = pgTable('dz_events', {
  id: timeuuid('id').primaryKey().default(sql`timeuuid_next()`),
  n: integer('n'),
});

// 3. bigint ids: mode 'bigint' (or 'string'), never 'number' for snowflakes.
const parents = pgTable('dz_parents', {
  id: bigint('id', { mode: 'bigint' }).primaryKey().default(sql`snowflake_next()`),
});
const children = pgTable('dz_children', {
  id: bigint('id', { mode: 'bigint' }).primaryKey().default(sql`snowflake_next()`),
  parentId: bigint('parent_id', { mode: 'bigint' }).references(() => parents.id),
});
// jsid_next() stays below 2^53: mode 'number' is exact.
const jsids = pgTable('dz_jsids', {
  id: bigint('id', { mode: 'number' }).primaryKey().default(sql`jsid_next()`),
});

// 4. A Hi/Lo key: DEFAULT hilo_next('dz_tickets'); hilo_create_key() makes
// its sequence once, after the first push (a migration's step).
const tickets = pgTable('dz_tickets', {
  id: bigint('id', { mode: 'number' }).primaryKey().default(sql`hilo_next('dz_tickets'::regclass)`),
  n: integer('n'),
});

module.exports = {
  orders, items, events, parents, children, jsids, tickets,
  ordersRelations: relations(orders, ({ many }) => ({ items: many(items) })),
  itemsRelations: relations(items, ({ one }) => ({ order: one(orders, { fields: [items.orderId], references: [orders.id] }) })),
  parentsRelations: relations(parents, ({ many }) => ({ children: many(children) })),
  childrenRelations: relations(children, ({ one }) => ({ parent: one(parents, { fields: [children.parentId], references: [parents.id] }) })),
};

