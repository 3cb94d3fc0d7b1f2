-- 09: finding 6 of issue 31 in another form: the key is unusable once the column has no default,
--     and the hints go in a circle. hilo_reserve() is documented "for an application that numbers
--     rows itself", i.e. exactly a table whose column need not have a default; the same happens to
--     children/LIKE copies after ALTER TABLE ONLY parent ... DROP DEFAULT.
-- Severity: MEDIUM (outage of hilo_reserve / of children's inserts; hints circular, the last one
--     even claims "DEFAULT hilo_next('ap') draws from it", which is false).
CREATE TABLE ap (id bigint PRIMARY KEY DEFAULT hilo_next('ap'), v text);
SELECT hilo_create_key('ap');
ALTER TABLE ap ALTER id DROP DEFAULT;            -- the app now numbers rows with hilo_reserve()
SELECT * FROM hilo_reserve('ap', 10);            -- 55000 no Hi/Lo key  HINT: SELECT hilo_create_key('ap')
SELECT hilo_create_key('ap');                    -- 22023 no column defaults  HINT: hilo_create_key('ap', 'id')
SELECT hilo_create_key('ap', 'id');              -- 42710 owns sequence ap_id_seq already
                                                 --   DETAIL: ... DEFAULT hilo_next('ap') draws from it.
                                                 --   HINT: ALTER SEQUENCE ap_id_seq INCREMENT BY 1000 ...
-- Expected: the sequence the column owns is the key whatever the default (as pg_get_serial_sequence
-- finds it), or a hint that says "restore the default hilo_next('ap')".
