# id_gen's ids through ActiveRecord 6.1 and ruby-pg (Debian's
# ruby-activerecord, ruby-pg), schema.rb dump and load included.  Connects
# with the libpq environment (PGHOST, PGPORT, PGDATABASE, PGUSER); prints one
# "ok <check>" or "not ok <check>: <why>" line per check.  Run by
# test/t/052_stacks.pl; docs/drivers.md quotes it.
require 'active_record'
require 'stringio'

$failed = false
def check(name, cond, why = '')
  puts((cond ? 'ok ' : 'not ok ') + name + (cond ? '' : ": #{why}"))
  $failed ||= !cond
end

ActiveRecord::Base.establish_connection(adapter: 'postgresql', host: ENV['PGHOST'], port: ENV['PGPORT'],
                                        database: ENV['PGDATABASE'], username: ENV['PGUSER'])
ActiveRecord::Migration.verbose = false
conn = ActiveRecord::Base.connection
%w[ar_items ar_orders ar_events ar_logins ar_accounts].each { |t| conn.drop_table(t, if_exists: true) }

def dump(tables)
  io = StringIO.new
  ActiveRecord::SchemaDumper.ignore_tables = [/^(?!(#{tables.join('|')})$)/]
  ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, io)
  io.string
end

# 1. New tables: uuid DEFAULT uuidv7_next(), a type ActiveRecord knows.
ActiveRecord::Schema.define do
  create_table :ar_orders, id: :uuid, default: -> { 'uuidv7_next()' } do |t|
    t.integer :n
  end
  create_table :ar_items, id: :uuid, default: -> { 'uuidv7_next()' } do |t|
    t.references :order, type: :uuid, foreign_key: { to_table: :ar_orders }
  end
  # bigint DEFAULT snowflake_next(): id: :bigint, not the default bigserial.
  create_table :ar_accounts, id: :bigint, default: -> { 'snowflake_next()' } do |t|
    t.text :name
  end
  create_table :ar_logins, id: :bigint, default: -> { 'snowflake_next()' } do |t|
    t.references :account, foreign_key: { to_table: :ar_accounts }
  end
end

class Order < ActiveRecord::Base
  self.table_name = 'ar_orders'
  has_many :items, class_name: 'Item'
end

class Item < ActiveRecord::Base
  self.table_name = 'ar_items'
  belongs_to :order
end

class Account < ActiveRecord::Base
  self.table_name = 'ar_accounts'
  has_many :logins, class_name: 'Login'
end

class Login < ActiveRecord::Base
  self.table_name = 'ar_logins'
  belongs_to :account
end

order = Order.create!(n: 1)
check('uuid: create! sets the uuidv7_next() id', order.id =~ /\A\h{8}-\h{4}-7\h{3}-/, order.id.inspect)
2.times { order.items.create! }
check('uuid: children by foreign key', Order.find(order.id).items.count == 2)
account = Account.create!(name: 'a')
text = conn.select_value('SELECT id::text FROM ar_accounts')
check('bigint: create! sets the snowflake_next() id (Integer, exact)', account.id.to_s == text && account.id > 2**53,
      [account.id, text].inspect)
2.times { account.logins.create! }
check('bigint: children by foreign key', Account.find(account.id).logins.count == 2)
schema = dump(%w[ar_orders ar_accounts])
check('schema.rb: uuid id with its uuidv7_next() default',
      schema.include?('create_table "ar_orders", id: :uuid, default: -> { "uuidv7_next()" }'), schema)
check('schema.rb: bigint id with its snowflake_next() default',
      schema.include?('create_table "ar_accounts", id: :bigint, default: -> { "snowflake_next()" }'), schema)

# 2. timeuuid columns: without the recipe, schema.rb cannot dump them.
conn.execute('CREATE TABLE ar_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)')
conn.schema_cache.clear!
schema = dump(%w[ar_events])
check("without the recipe schema.rb fails: Unknown type 'timeuuid'", schema.include?("Unknown type 'timeuuid'"), schema)

# The recipe (config/initializers/timeuuid.rb in a Rails app): timeuuid is
# a native type of the adapter, read and written like uuid (a String).
module Timeuuid
  class Type < ActiveRecord::ConnectionAdapters::PostgreSQL::OID::Uuid
    def type
      :timeuuid
    end
  end

  module Adapter
    def native_database_types
      super.merge(timeuuid: { name: 'timeuuid' })
    end

    private

    def initialize_type_map(m = type_map)
      super
      m.register_type 'timeuuid', Type.new
    end
  end

  module ColumnMethods # t.timeuuid in migrations and schema.rb
    def timeuuid(*names, **options)
      names.each { |name| column(name, :timeuuid, **options) }
    end
  end
end
ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.prepend(Timeuuid::Adapter)
ActiveRecord::ConnectionAdapters::PostgreSQL::TableDefinition.include(Timeuuid::ColumnMethods)
ActiveRecord::ConnectionAdapters::PostgreSQL::Table.include(Timeuuid::ColumnMethods)
ActiveRecord::Base.connection_pool.disconnect! # new connections build their type map with it
conn = ActiveRecord::Base.connection

class Event < ActiveRecord::Base
  self.table_name = 'ar_events'
end

first = Event.create!(n: 1)
second = Event.create!(n: 2)
check('timeuuid: create! sets the id, a String', first.id =~ /\A\h{8}-\h{4}-[167]\h{3}-/, first.id.inspect)
check('timeuuid: find(String)', Event.find(second.id).n == 2)
check('timeuuid: where(id > ?) (time order)', Event.where('id > ?', first.id).count == 1)
# Many ids at once as a uuid[], through the timeuuid index (seqscan off: as on
# a big table).
conn.execute('SET enable_seqscan = off')
found = Event.where('id = ANY(ARRAY[?]::uuid[])', [second.id, first.id]).order(:id).pluck(:n)
conn.execute('RESET enable_seqscan')
check('timeuuid: where(id = ANY(ARRAY[?]::uuid[])), through the index', found == [1, 2], found.inspect)
check('timeuuid: an attribute of type :timeuuid', Event.columns_hash['id'].type == :timeuuid, Event.columns_hash['id'].type.inspect)
schema = dump(%w[ar_events])
line = 'create_table "ar_events", id: :timeuuid, default: -> { "timeuuid_next()" }'
check('schema.rb: timeuuid id with its timeuuid_next() default', schema.include?(line), schema)

# schema.rb loads back into the same types (db:schema:load).
conn.drop_table(:ar_events)
eval(schema.sub(/\A.*?(ActiveRecord::Schema)/m, '\1')) # rubocop:disable Security/Eval
type = conn.select_value("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'ar_events'::regclass AND attname = 'id'")
default = conn.select_value("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'ar_events'::regclass")
check('schema.rb loads back: timeuuid DEFAULT timeuuid_next()', type == 'timeuuid' && default == 'timeuuid_next()', [type, default].inspect)
conn.create_table(:ar_more, id: :uuid, default: -> { 'uuidv7_next()' }, force: true) { |t| t.timeuuid :seen }
type = conn.select_value("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'ar_more'::regclass AND attname = 'seen'")
check('migrations: t.timeuuid adds a timeuuid column', type == 'timeuuid', type)
conn.drop_table(:ar_more)
exit($failed ? 1 : 0)
