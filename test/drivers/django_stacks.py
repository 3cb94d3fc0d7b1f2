"""id_gen's ids through Django 3.2 and psycopg2 (Debian's python3-django): the
app in test/drivers/django_app/ is migrated into the database of the libpq
environment (PGHOST, PGPORT, PGDATABASE, PGUSER), then used.  Prints one
"ok <check>" or "not ok <check>: <why>" line per check.  Run by
test/t/052_stacks.pl; docs/drivers.md quotes it."""
import io
import os
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import django
from django.conf import settings

settings.configure(
    DATABASES={"default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ["PGDATABASE"], "USER": os.environ["PGUSER"],
        "HOST": os.environ["PGHOST"], "PORT": os.environ["PGPORT"]}},
    INSTALLED_APPS=["django_app"], USE_TZ=True)
django.setup()

from django.core.management import call_command
from django.db import connection

from django_app.models import Account, Event, Item, Login, Order, Ticket

failed = False


def check(name, cond, why=""):
    global failed
    print(("ok " if cond else "not ok ") + name + ("" if cond else ": " + str(why)), flush=True)
    failed = failed or not cond


with connection.cursor() as cur:
    cur.execute("DROP TABLE IF EXISTS django_app_item, django_app_order, django_app_event, "
                "django_app_login, django_app_account, django_app_ticket, django_migrations")
call_command("migrate", "django_app", verbosity=0)
try:
    call_command("makemigrations", "django_app", check=True, dry_run=True, verbosity=0)
    check("makemigrations --check: the models and the migration agree", True)
except SystemExit as e:
    check("makemigrations --check: the models and the migration agree", False, e)

# uuid DEFAULT uuidv7_next(): the id comes back from the INSERT.
order = Order.objects.create(n=1)
check("uuid: create() sets the uuidv7_next() id", isinstance(order.id, uuid.UUID) and order.id.version == 7, repr(order.id))
items = Item.objects.bulk_create([Item(order=order), Item(order=order)])
check("uuid: bulk_create() sets the ids", all(isinstance(i.id, uuid.UUID) for i in items), [i.id for i in items])
check("uuid: children by foreign key", Order.objects.get(pk=order.id).items.count() == 2)

# timeuuid DEFAULT timeuuid_next(): uuid.UUID both ways.
first = Event.objects.create(n=1)
second = Event.objects.create(n=2)
check("timeuuid: create() sets the id, a uuid.UUID", isinstance(first.id, uuid.UUID), repr(first.id))
check("timeuuid: get(pk=uuid.UUID)", Event.objects.get(pk=second.id).n == 2)
check("timeuuid: filter(id__gt=) (time order)", Event.objects.filter(id__gt=first.id).count() == 1)
# Many ids at once: id__in sends uuid.UUID values ('...'::uuid, a uuid[] to
# the server), through the timeuuid index (seqscan off: as on a big table).
with connection.cursor() as cursor:
    cursor.execute("SET enable_seqscan = off")
    found = list(Event.objects.filter(id__in=[second.id, first.id]).order_by("id").values_list("n", flat=True))
    cursor.execute("RESET enable_seqscan")
check("timeuuid: filter(id__in=[...]), through the index", found == [1, 2], found)
check("timeuuid: read back as uuid.UUID", Event.objects.get(n=1).id == first.id)

# bigint DEFAULT snowflake_next().
account = Account.objects.create(name="a")
with connection.cursor() as cur:
    cur.execute("SELECT id::text FROM django_app_account")
    text = cur.fetchone()[0]
check("bigint: create() sets the snowflake_next() id", str(account.id) == text and account.id > 2**53, (account.id, text))
Login.objects.create(account=account)
Login.objects.create(account=account)
check("bigint: children by foreign key", Account.objects.get(pk=account.id).logins.count() == 2)

# bigint DEFAULT hilo_next(): a Hi/Lo key the migration made; migrating back
# and forth again keeps the default as the model says and no id repeats.
first_tickets = [Ticket.objects.create(title=str(i)).id for i in range(3)]
check("hilo: create() sets the hilo_next() ids", first_tickets == sorted(first_tickets) and first_tickets[0] >= 1, first_tickets)
try:
    call_command("migrate", "django_app", "0001", verbosity=0)
    call_command("migrate", "django_app", verbosity=0)
    check("hilo: migrate back to 0001 and forward again", True)
except Exception as e:
    check("hilo: migrate back to 0001 and forward again", False, e)
try:
    call_command("makemigrations", "django_app", check=True, dry_run=True, verbosity=0)
    check("hilo: makemigrations --check after the round trip: no pending change", True)
except SystemExit as e:
    check("hilo: makemigrations --check after the round trip: no pending change", False, e)
more = [Ticket.objects.create(title="again").id for i in range(3)]
check("hilo: the table made again has its key again (ids from 1)", more == [1, 2, 3], more)

# Without the recipe: a plain field with the same DEFAULT inserts NULL.
from django.db import IntegrityError, models


class Plain(models.Model):
    id = models.BigIntegerField(primary_key=True)

    class Meta:
        app_label = "django_app"
        db_table = "django_app_account"
        managed = False


try:
    Plain.objects.create()
    check("without the recipe a BigIntegerField primary key inserts NULL", False, "inserted")
except IntegrityError as e:
    check("without the recipe a BigIntegerField primary key inserts NULL", "null value" in str(e), str(e))

# inspectdb: a uuid column is a UUIDField; a timeuuid one a TextField guess
# (replace it by TimeuuidField).
out = io.StringIO()
call_command("inspectdb", "django_app_order", "django_app_event", stdout=out)
models_py = out.getvalue()
check("inspectdb: uuid id is a UUIDField", "id = models.UUIDField(primary_key=True)" in models_py, models_py)
check("inspectdb: timeuuid id is guessed a TextField", "id = models.TextField(primary_key=True)  # This field type is a guess." in models_py, models_py)
sys.exit(1 if failed else 0)
