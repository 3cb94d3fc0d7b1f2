"""id_gen's ids through asyncpg 0.27 (Debian's python3-asyncpg).  Connects with
the libpq environment (PGHOST, PGPORT, PGDATABASE, PGUSER); prints one
"ok <check>" or "not ok <check>: <why>" line per check.  Run by
test/t/052_stacks.pl; docs/drivers.md quotes it."""
import asyncio
import sys
import uuid

import asyncpg

failed = False


def check(name, cond, why=""):
    global failed
    print(("ok " if cond else "not ok ") + name + ("" if cond else ": " + str(why)), flush=True)
    failed = failed or not cond


async def timeuuid_as_uuid(conn):
    """The recipe for timeuuid columns: timeuuid has uuid's binary format,
    so asyncpg may exchange it with its uuid codec (uuid.UUID both ways).
    Pass it as init= to asyncpg.create_pool() to set it on every connection."""
    await conn.set_builtin_type_codec("timeuuid", schema="public", codec_name="uuid")


async def main():
    conn = await asyncpg.connect()

    # 1. New tables: uuid DEFAULT uuidv7_next(): uuid.UUID both ways, no recipe.
    await conn.execute("DROP TABLE IF EXISTS ap_items, ap_orders, ap_events, ap_big")
    await conn.execute("CREATE TABLE ap_orders (id uuid PRIMARY KEY DEFAULT uuidv7_next(), n int)")
    await conn.execute("CREATE TABLE ap_items (id uuid PRIMARY KEY DEFAULT uuidv7_next(), order_id uuid REFERENCES ap_orders)")
    order = await conn.fetchval("INSERT INTO ap_orders (n) VALUES (1) RETURNING id")
    check("uuid: RETURNING id is a uuid.UUID (version 7)", isinstance(order, uuid.UUID) and order.version == 7, repr(order))
    await conn.executemany("INSERT INTO ap_items (order_id) VALUES ($1)", [(order,), (order,)])
    count = await conn.fetchval("SELECT count(*) FROM ap_items WHERE order_id = $1", order)
    check("uuid: a uuid.UUID parameter as foreign key", count == 2, count)

    # 2. timeuuid columns.  The server types $1 as timeuuid, a type asyncpg
    # does not know: it exchanges it as text and refuses a uuid.UUID.
    await conn.execute("CREATE TABLE ap_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)")
    first = await conn.fetchval("INSERT INTO ap_events (n) VALUES (1) RETURNING id")
    check("without the recipe a timeuuid arrives as str", isinstance(first, str), repr(first))
    try:
        await conn.fetchval("SELECT n FROM ap_events WHERE id = $1", uuid.UUID(first))
        check("without the recipe a uuid.UUID parameter is refused", False, "it was taken")
    except asyncpg.exceptions.DataError:
        check("without the recipe a uuid.UUID parameter is refused", True)

    await timeuuid_as_uuid(conn)
    first = await conn.fetchval("SELECT id FROM ap_events WHERE n = 1")
    check("with the recipe a timeuuid arrives as uuid.UUID", isinstance(first, uuid.UUID), repr(first))
    second = await conn.fetchval("INSERT INTO ap_events (n) VALUES (2) RETURNING id")
    n = await conn.fetchval("SELECT n FROM ap_events WHERE id = $1", second)
    check("with the recipe: WHERE id = $1 with a uuid.UUID", n == 2, n)
    later = await conn.fetchval("SELECT count(*) FROM ap_events WHERE id > $1", first)
    check("with the recipe: WHERE id > $1 (time order)", later == 1, later)
    # Many ids at once: a uuid[] parameter (typed so, it needs no recipe),
    # through the timeuuid index (seqscan off: as on a big table).
    await conn.execute("SET enable_seqscan = off")
    found = await conn.fetch("SELECT n FROM ap_events WHERE id = ANY($1::uuid[]) ORDER BY id", [second, first])
    await conn.execute("RESET enable_seqscan")
    check("WHERE id = ANY($1::uuid[]) with a list of uuid.UUID, through the index",
          [r["n"] for r in found] == [1, 2], repr(found))
    ids = await conn.fetchval("SELECT array_agg(id ORDER BY id) FROM ap_events")
    check("with the recipe a timeuuid[] arrives as a list of uuid.UUID", ids == [first, second], repr(ids))
    # Sent in binary, a version 4 uuid fails timeuuid's binary input (22P03).
    try:
        await conn.fetchval("SELECT 1 FROM ap_events WHERE id = $1", uuid.uuid4())
        check("a version 4 uuid.UUID is refused", False, "no error")
    except asyncpg.PostgresError as e:
        check("a version 4 uuid.UUID is refused", e.sqlstate == "22P03", e.sqlstate)

    # 3. bigint: int, exact.
    await conn.execute("CREATE TABLE ap_big (id bigint PRIMARY KEY DEFAULT snowflake_next(), n int)")
    big, text = await conn.fetchrow("INSERT INTO ap_big (n) VALUES (1) RETURNING id, id::text")
    check("bigint snowflake: int exact", str(big) == text, (big, text))
    await conn.close()


async def through_pgbouncer():
    """asyncpg through PgBouncer in transaction mode (argument "pgbouncer",
    PGHOST/PGPORT naming PgBouncer): asyncpg's own rule applies,
    statement_cache_size=0 (PgBouncer 1.18 does not carry prepared
    statements across server connections); the timeuuid recipe is the same,
    as init= of the pool."""
    pool = await asyncpg.create_pool(min_size=4, max_size=4, statement_cache_size=0, init=timeuuid_as_uuid)
    await pool.execute("DROP TABLE IF EXISTS ap_pooled")
    await pool.execute("CREATE TABLE ap_pooled (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), u uuid DEFAULT uuidv7_next())")

    async def insert(_):
        async with pool.acquire() as conn:
            return await conn.fetchrow("INSERT INTO ap_pooled DEFAULT VALUES RETURNING id, u")

    rows = await asyncio.gather(*[insert(i) for i in range(200)])
    check("PgBouncer: 200 inserts from 4 pooled connections, timeuuid ids as uuid.UUID",
          all(isinstance(r["id"], uuid.UUID) for r in rows), repr(rows[0]))
    check("PgBouncer: every timeuuid and uuidv7 id distinct",
          len({r["id"] for r in rows}) == 200 and len({r["u"] for r in rows}) == 200)
    found = await pool.fetchval("SELECT count(*) FROM ap_pooled WHERE id = $1", rows[-1]["id"])
    check("PgBouncer: a uuid.UUID parameter finds its row", found == 1, found)
    await pool.close()


asyncio.run(through_pgbouncer() if sys.argv[1:] == ["pgbouncer"] else main())
sys.exit(1 if failed else 0)
