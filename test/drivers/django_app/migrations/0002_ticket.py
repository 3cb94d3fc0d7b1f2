from django.db import migrations, models

import django_app.fields


class Migration(migrations.Migration):
    dependencies = [("django_app", "0001_initial")]
    operations = [
        migrations.CreateModel(name="Ticket", fields=[
            ("id", django_app.fields.DatabaseDefaultBigIntegerField(primary_key=True, serialize=False)),
            ("title", models.TextField())]),
        # The Hi/Lo key: the default as for a serial, and its sequence; the
        # way back drops both, so the way forward can make them again.
        migrations.RunSQL(
            ["ALTER TABLE django_app_ticket ALTER COLUMN id SET DEFAULT hilo_next('django_app_ticket')",
             "SELECT hilo_create_key('django_app_ticket')"],
            ["ALTER TABLE django_app_ticket ALTER COLUMN id DROP DEFAULT",
             "DROP SEQUENCE django_app_ticket_id_seq"]),
    ]
