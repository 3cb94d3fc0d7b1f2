#!/bin/sh
# 04: duplicates when a key's sequence is unowned and a new key is made (the recovery the docs
#     and the "no Hi/Lo key" hint give): a session holding a block of the old sequence keeps
#     handing it out, the new key starts "above the rows", i.e. inside that block.
# Severity: HIGH (duplicate ids; a PK turns it into failed inserts). Issue 31 asked for
#     "DROP SEQUENCE or OWNED BY NONE of a live key's sequence is refused"; 1.4 allows
#     OWNED BY NONE silently (no relcache invalidation reaches the holder; only DROP does),
#     and docs/hilo.md only mentions it as a sharp edge.
# Expected: ALTER SEQUENCE ... OWNED BY NONE refused (2BP01 like a serial's DROP), or the holders'
#     blocks dropped/new key started above every reserved id. Actual: A2 gets id 3 = B's id.
# Usage: P="psql -X -h /tmp/r31 -p 55431" sh 04_owned_by_none_recreate_dup.sh
P=${P:-psql -X}
$P -q <<'SQL'
DROP TABLE IF EXISTS sw;
CREATE TABLE sw (id bigint PRIMARY KEY DEFAULT hilo_next('sw'), who text);
SELECT hilo_create_key('sw', max_lo => 1000);
INSERT INTO sw(who) VALUES ('init');
SQL
( $P -q <<'SQL'
INSERT INTO sw(who) VALUES ('A1') RETURNING id;   -- 2: A now holds 3..1001
SELECT pg_sleep(3);
INSERT INTO sw(who) VALUES ('A2') RETURNING id;   -- 3 again -> 23505
SQL
) & sleep 1
$P -q <<'SQL'
ALTER SEQUENCE sw_id_seq OWNED BY NONE;
SELECT hilo_create_key('sw', max_lo => 1000);      -- sw_id_seq1, START 3 ("above the rows")
INSERT INTO sw(who) VALUES ('B') RETURNING id;    -- 3
SQL
wait
$P -c "SELECT * FROM sw ORDER BY id"
