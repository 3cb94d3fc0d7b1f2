"""A Django 3.2 app whose primary keys id_gen's defaults fill in; the models,
fields and migration are the recipe docs/drivers.md quotes.  Run by
test/drivers/django_stacks.py (test/t/052_stacks.pl)."""
