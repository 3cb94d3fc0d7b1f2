-- 08: hilo_create_key() accepts a block size larger than the column type's range: a smallint key
--     gives one id and is then exhausted, while id_gen.headroom reports "0.00% ... ok" and the
--     near-the-end WARNING never fires (finding 13's blind spot, in another form).
-- Severity: LOW-MEDIUM (outage after the first id; monitoring says all is well).
-- Expected: hilo_create_key refuses max_lo above the type's range (22023/2200H with a hint), or
--     headroom counts the key as exhausted. Actual: accepted; 2nd insert 2200H; headroom ok 0.00%.
CREATE TABLE sm (id smallint PRIMARY KEY DEFAULT hilo_next('sm'));
SELECT hilo_create_key('sm', max_lo => 100000);
INSERT INTO sm DEFAULT VALUES RETURNING id;     -- 1
INSERT INTO sm DEFAULT VALUES RETURNING id;     -- ERROR 2200H reached maximum value of sequence "sm_id_seq" (32767)
SELECT object, used_fraction, status, reason FROM id_gen.headroom WHERE object = 'public.sm';
--  public.sm | 3.05e-05 | ok | 0.00% of the ids up to 32767 used (reserved to 1); block size 100000

-- Also seen in id_gen.headroom: after setval(seq, n, false) (the docs' "next id is n") a key shows
-- "reserved to none yet", 0% used, while sessions still hold blocks below n.
