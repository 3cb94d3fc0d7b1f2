#!/bin/sh
# 10: the 1.0 .. 1.3->1.4 scripts still ship (make install puts them in the extension directory),
#     including the 1.3->1.4 conversion code of finding 2 (EXECUTE format('ALTER TABLE ... SET
#     DEFAULT ...') as the superuser, the hilo_on_ddl event trigger, C symbols hilo_next_key,
#     hilo_key_reserved_to that 1.4's library no longer has). Issue 31: "No upgrade path ... is
#     needed ... the conversion code in id_gen--1.3--1.4.sql goes too (finding 2)".
# Severity: LOW (unusable today: CREATE EXTENSION ... VERSION '1.3' fails at a missing symbol;
#     but dead, reviewer-confusing code with the old capture pattern is installed and offered).
# Expected: only id_gen--1.4.sql installed. Actual:
ls "$(pg_config --sharedir)/extension/" | grep id_gen
psql -X -c "CREATE EXTENSION id_gen VERSION '1.3'"   # ERROR: could not find function "hilo_set_max_lo" in file ".../id_gen.so"
