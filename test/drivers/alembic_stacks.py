"""A Hi/Lo key through Alembic 1.8 and SQLAlchemy 1.4 (Debian's python3-alembic,
python3-sqlalchemy, python3-psycopg2), in the database of the libpq environment:
autogenerate writes the model's table with its default, the migration makes the key
with hilo_create_key(), and a second autogenerate, comparing server defaults and
types, finds nothing to change.  Prints one "ok <check>" or "not ok <check>: <why>"
line per check.  Run by test/t/052_stacks.pl; docs/hilo.md quotes the model."""
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata, produce_migrations, render_python_code
from alembic.migration import MigrationContext
from alembic.operations import Operations

failed = False


def check(name, cond, why=""):
    global failed
    print(("ok " if cond else "not ok ") + name + ("" if cond else ": " + str(why)), flush=True)
    failed = failed or not cond


# The model: the default written as PostgreSQL prints it, so that the text compares equal.
metadata = sa.MetaData()
orders = sa.Table(
    "alembic_orders", metadata,
    sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False,
              server_default=sa.text("hilo_next('alembic_orders'::regclass)")),
    sa.Column("note", sa.Text))

# Only this test's table: the database holds the other stacks' tables too.
opts = {"compare_server_default": True, "compare_type": True,
        "include_name": lambda name, type_, parents: type_ != "table" or name == "alembic_orders"}

engine = sa.create_engine("postgresql+psycopg2://", future=True)
with engine.begin() as conn:
    conn.execute(sa.text("DROP TABLE IF EXISTS alembic_orders"))
    ctx = MigrationContext.configure(conn, opts=opts)
    script = produce_migrations(ctx, metadata)
    code = render_python_code(script.upgrade_ops)
    check("autogenerate writes the default", "hilo_next('alembic_orders'::regclass)" in code, code)
    op = Operations(ctx)
    for o in script.upgrade_ops.ops:
        op.invoke(o)
    op.execute("SELECT hilo_create_key('alembic_orders')")

with engine.begin() as conn:
    ids = [conn.execute(orders.insert().values(note=n).returning(orders.c.id)).scalar_one()
           for n in ("a", "b", "c")]
    check("inserts get the key's ids", ids == [1, 2, 3], ids)
    diff = compare_metadata(MigrationContext.configure(conn, opts=opts), metadata)
    check("autogenerate after the migration finds nothing to change", diff == [], diff)

# The way back: the key's sequence goes with its table, as a serial's does.
with engine.begin() as conn:
    Operations(MigrationContext.configure(conn)).drop_table("alembic_orders")
    left = conn.execute(sa.text("SELECT count(*) FROM pg_class WHERE relname = 'alembic_orders_id_seq'")).scalar_one()
    check("downgrade drops the key with the table", left == 0, left)

raise SystemExit(1 if failed else 0)
