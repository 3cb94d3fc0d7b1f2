from django.apps import AppConfig
from django.db.backends.signals import connection_created


class DjangoAppConfig(AppConfig):
    name = "django_app"

    def ready(self):
        from .fields import timeuuid_as_uuid
        connection_created.connect(timeuuid_as_uuid)
