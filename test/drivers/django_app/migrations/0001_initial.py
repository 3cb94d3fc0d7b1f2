import django.db.models.deletion
from django.db import migrations, models

import django_app.fields


def set_default(table, expression):
    return migrations.RunSQL(
        f"ALTER TABLE {table} ALTER COLUMN id SET DEFAULT {expression}",
        f"ALTER TABLE {table} ALTER COLUMN id DROP DEFAULT")


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        migrations.CreateModel(name="Order", fields=[
            ("id", django_app.fields.DatabaseDefaultUUIDField(primary_key=True, serialize=False)),
            ("n", models.IntegerField())]),
        migrations.CreateModel(name="Item", fields=[
            ("id", django_app.fields.DatabaseDefaultUUIDField(primary_key=True, serialize=False)),
            ("order", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="items", to="django_app.order"))]),
        migrations.CreateModel(name="Event", fields=[
            ("id", django_app.fields.TimeuuidField(primary_key=True, serialize=False)),
            ("n", models.IntegerField())]),
        migrations.CreateModel(name="Account", fields=[
            ("id", django_app.fields.DatabaseDefaultBigIntegerField(primary_key=True, serialize=False)),
            ("name", models.TextField())]),
        migrations.CreateModel(name="Login", fields=[
            ("id", django_app.fields.DatabaseDefaultBigIntegerField(primary_key=True, serialize=False)),
            ("account", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="logins", to="django_app.account"))]),
        set_default("django_app_order", "uuidv7_next()"),
        set_default("django_app_item", "uuidv7_next()"),
        set_default("django_app_event", "timeuuid_next()"),
        set_default("django_app_account", "snowflake_next()"),
        set_default("django_app_login", "snowflake_next()"),
    ]
