-- 07: ALTER TABLE ... SET UNLOGGED (PostgreSQL 15 carries it to owned sequences) makes the key's
--     sequence unlogged: every insert fails until SET LOGGED. The common bulk-load pattern
--     "SET UNLOGGED; load with default ids; SET LOGGED" fails; a serial works there.
-- Severity: LOW-MEDIUM (outage during the window; the hint is right). Docs promise the key is
--     "always logged (also for an unlogged table: a crash must not reset it)" and do not say that
--     SET UNLOGGED undoes it.
CREATE TABLE bl (id bigint PRIMARY KEY DEFAULT hilo_next('bl'), v text);
SELECT hilo_create_key('bl');
ALTER TABLE bl SET UNLOGGED;
SELECT relpersistence FROM pg_class WHERE relname = 'bl_id_seq';   -- u
INSERT INTO bl(v) SELECT 'bulk' FROM generate_series(1,3);         -- ERROR 0A000 sequence bl_id_seq is not logged
ALTER TABLE bl SET LOGGED;                                         -- sequence logged again
