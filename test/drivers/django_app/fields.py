"""Primary keys the database fills in, for Django 3.2 (no db_default before 5.0).

A plain field with a database DEFAULT does not work: Django sends its own
value, NULL, in the INSERT.  Django leaves out of the INSERT, and reads back
with RETURNING, only its auto field; these fields are auto fields whose
column has no sequence, and a migration sets the column's DEFAULT
(migrations.RunSQL ... SET DEFAULT snowflake_next(), see 0001_initial.py)."""
import psycopg2.extras
from django.db import models


class DatabaseDefaultBigIntegerField(models.BigAutoField):
    """bigint primary key for snowflake_next(), jsid_next(), decimal_id(), hilo_next()."""

    def db_type(self, connection):
        return "bigint"  # not bigserial: the DEFAULT is id_gen's


class DatabaseDefaultUUIDField(models.AutoField):
    """uuid primary key for uuidv7_next().  An AutoField (bulk_create leaves
    only AutoField subclasses out of its INSERT) with UUIDField's column and
    values."""

    _uuid = models.UUIDField()
    validators = []

    def get_internal_type(self):
        return "UUIDField"

    def rel_db_type(self, connection):
        return self.db_type(connection)  # foreign keys: uuid, not integer

    def to_python(self, value):
        return self._uuid.to_python(value)

    def get_prep_value(self, value):
        return self._uuid.get_prep_value(value)

    def get_db_prep_value(self, value, connection, prepared=False):
        return self._uuid.get_db_prep_value(value, connection, prepared)


class TimeuuidField(DatabaseDefaultUUIDField):
    """timeuuid primary key for timeuuid_next(); with timeuuid_as_uuid
    connected (apps.py), its values are uuid.UUID."""

    def db_type(self, connection):
        return "timeuuid"


def timeuuid_as_uuid(sender, connection, **kwargs):
    """Has psycopg2 read timeuuid and timeuuid[] as it reads uuid (it hands
    over a type it does not know as str).  Connected to connection_created."""
    with connection.connection.cursor() as cur:
        cur.execute("SELECT to_regtype('timeuuid')::oid, to_regtype('timeuuid[]')::oid")
        oids = cur.fetchone()
    if oids[0] is not None:  # id_gen is installed (not yet in early migrations)
        psycopg2.extras.register_uuid(oids=oids, conn_or_curs=connection.connection)
