"""timeuuid through psycopg2 2.9 and SQLAlchemy 1.4 (Debian's python3-psycopg2,
python3-sqlalchemy).  Connects with the libpq environment (PGHOST, PGPORT,
PGDATABASE); prints one "ok <check>" or "not ok <check>: <why>" line per check.
Run by test/t/050_drivers.pl."""
import sys
import uuid

import psycopg2
import psycopg2.extras

failed = False


def check(name, cond, why=""):
    global failed
    print(("ok " if cond else "not ok ") + name + ("" if cond else ": " + why))
    failed = failed or not cond


conn = psycopg2.connect("")
conn.autocommit = True
cur = conn.cursor()
cur.execute("DROP TABLE IF EXISTS py_events")
cur.execute("CREATE TABLE py_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)")
cur.execute("INSERT INTO py_events (n) SELECT g FROM generate_series(1, 10) g")

# A parameter of type uuid.UUID is sent as uuid: every comparison takes it.
psycopg2.extras.register_uuid()
cur.execute("SELECT id::text FROM py_events WHERE n = 5")
fifth = uuid.UUID(cur.fetchone()[0])
cur.execute("SELECT n FROM py_events WHERE id = %s", (fifth,))
check("uuid.UUID parameter: WHERE id = %s", cur.fetchone() == (5,))
cur.execute("SELECT count(*) FROM py_events WHERE id > %s", (fifth,))
check("uuid.UUID parameter: WHERE id > %s (time order)", cur.fetchone() == (5,))
# Many ids at once: a list of uuid.UUID is sent as a uuid[] (ARRAY['...'::uuid,
# ...]); the timeuuid index takes it (seqscan off: as on a big table).
cur.execute("SELECT id::text FROM py_events WHERE n = 9")
ninth = uuid.UUID(cur.fetchone()[0])
cur.execute("SET enable_seqscan = off")
cur.execute("SELECT n FROM py_events WHERE id = ANY(%s) ORDER BY id", ([ninth, fifth],))
check("list of uuid.UUID: WHERE id = ANY(%s), through the index", cur.fetchall() == [(5,), (9,)])
cur.execute("RESET enable_seqscan")
cur.execute("INSERT INTO py_events (id, n) VALUES (%s, 11)", (uuid.UUID("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),))
check("uuid.UUID parameter inserted into a timeuuid column", cur.rowcount == 1)
# A version 4 uuid.UUID compares (no timeuuid equals it); only a timeuuid
# column refuses it.
cur.execute("SELECT count(*) FROM py_events WHERE id = %s", (uuid.uuid4(),))
check("a version 4 uuid.UUID parameter finds no row, without an error", cur.fetchone() == (0,))
try:
    cur.execute("INSERT INTO py_events (id, n) VALUES (%s, 12)", (uuid.uuid4(),))
    check("a version 4 uuid.UUID is refused by a timeuuid column", False, "no error")
except psycopg2.Error as e:
    check("a version 4 uuid.UUID is refused by a timeuuid column", e.pgcode == "22023", e.pgcode)

# Results: psycopg2 picks the Python type by the column's type OID.
cur.execute("SELECT id FROM py_events WHERE n = 5")
check("without the recipe a timeuuid arrives as str", isinstance(cur.fetchone()[0], str))
# The recipe: register the uuid adapter for timeuuid's OIDs too.
cur.execute("SELECT 'timeuuid'::regtype::oid, 'timeuuid[]'::regtype::oid")
psycopg2.extras.register_uuid(oids=cur.fetchone(), conn_or_curs=conn)
cur.execute("SELECT id, ARRAY[id] FROM py_events WHERE n = 5")
value, values = cur.fetchone()
check("with register_uuid(oids=...) a timeuuid arrives as uuid.UUID", value == fifth)
check("and a timeuuid[] as a list of uuid.UUID", values == [fifth])
# Or cast in the query: a uuid column's value is a uuid.UUID anyway.
cur.execute("SELECT id::uuid FROM py_events WHERE n = 5")
check("id::uuid arrives as uuid.UUID", cur.fetchone()[0] == fifth)

# SQLAlchemy 1.4, the PostgreSQL dialect's UUID(as_uuid=True) on a timeuuid column.
try:
    import sqlalchemy as sa
    from sqlalchemy.dialects.postgresql import UUID
    from sqlalchemy.orm import Session, declarative_base

    Base = declarative_base()

    class Event(Base):
        __tablename__ = "py_events"
        id = sa.Column(UUID(as_uuid=True), primary_key=True)
        n = sa.Column(sa.Integer)

    engine = sa.create_engine("postgresql+psycopg2://", future=True)
    with Session(engine) as session:
        event = session.get(Event, fifth)
        check("SQLAlchemy UUID(as_uuid=True): Session.get() by uuid.UUID", event is not None and event.n == 5)
        later = session.execute(sa.select(sa.func.count()).where(Event.id > fifth)).scalar_one()
        check("SQLAlchemy: Event.id > uuid.UUID (time order)", later == 5, str(later))
        session.execute(sa.text("SET enable_seqscan = off"))
        found = session.execute(sa.select(Event.n).where(Event.id.in_([ninth, fifth])).order_by(Event.id)).scalars().all()
        session.execute(sa.text("RESET enable_seqscan"))
        check("SQLAlchemy: Event.id.in_([uuid.UUID, ...]), through the index", found == [5, 9], str(found))
        session.add(Event(id=uuid.UUID("1ec9414c-232a-6b00-b3c8-9f6bdeced846"), n=12))
        session.commit()
        check("SQLAlchemy: insert of uuid.UUID into timeuuid", session.get(Event, uuid.UUID("1ec9414c-232a-6b00-b3c8-9f6bdeced846")) is not None)

    # New tables: uuid DEFAULT uuidv7_next(), no recipe: the id is a uuid.UUID.
    class Order(Base):
        __tablename__ = "py_orders"
        id = sa.Column(UUID(as_uuid=True), primary_key=True, server_default=sa.text("uuidv7_next()"))
        n = sa.Column(sa.Integer)

    Order.__table__.drop(engine, checkfirst=True)
    Order.__table__.create(engine)
    with Session(engine) as session:
        order = Order(n=1)
        session.add(order)
        session.commit()
        check("SQLAlchemy: uuid server_default uuidv7_next(): the id comes back as uuid.UUID",
              isinstance(order.id, uuid.UUID) and order.id.version == 7, repr(order.id))
        check("SQLAlchemy: Session.get() by the uuidv7_next() id", session.get(Order, order.id).n == 1)
except ImportError as e:
    check("SQLAlchemy available", False, str(e))

sys.exit(1 if failed else 0)
