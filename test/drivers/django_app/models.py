from django.db import models

from .fields import DatabaseDefaultBigIntegerField, DatabaseDefaultUUIDField, TimeuuidField


# New tables: uuid DEFAULT uuidv7_next().
class Order(models.Model):
    id = DatabaseDefaultUUIDField(primary_key=True)
    n = models.IntegerField()


class Item(models.Model):
    id = DatabaseDefaultUUIDField(primary_key=True)
    order = models.ForeignKey(Order, models.CASCADE, related_name="items")


# timeuuid DEFAULT timeuuid_next().
class Event(models.Model):
    id = TimeuuidField(primary_key=True)
    n = models.IntegerField()


# bigint DEFAULT snowflake_next(), and a child by foreign key.
class Account(models.Model):
    id = DatabaseDefaultBigIntegerField(primary_key=True)
    name = models.TextField()


class Login(models.Model):
    id = DatabaseDefaultBigIntegerField(primary_key=True)
    account = models.ForeignKey(Account, models.CASCADE, related_name="logins")


# bigint DEFAULT hilo_next('django_app_ticket'): a Hi/Lo key, made by the
# migration (hilo_create_key), as the table's serial would be.
class Ticket(models.Model):
    id = DatabaseDefaultBigIntegerField(primary_key=True)
    title = models.TextField()
