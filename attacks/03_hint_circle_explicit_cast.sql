-- 03: hints that go in a circle for a default with an explicit cast (a natural way to write an
--     integer column's default; ORMs emit it too): DEFAULT hilo_next('ic')::integer
-- Severity: MEDIUM (key unusable; the hints send the user round: hilo_create_key('ic') ->
--     "name the column" -> hilo_create_key('ic','id') succeeds -> insert: "no Hi/Lo key" ->
--     "SELECT hilo_create_key('ic')" -> "name the column" -> ... "owns sequence already").
-- Cause: hilo_parse_default() strips only implicit coercions; hilo_create_key(t, col) does not
--     check that the named column's default calls hilo_next(t).
CREATE TABLE ic (id integer PRIMARY KEY DEFAULT hilo_next('ic')::integer);
SELECT hilo_create_key('ic');          -- 22023 no column ... HINT: hilo_create_key('ic', 'id')
SELECT hilo_create_key('ic', 'id');    -- ok: ic_id_seq
INSERT INTO ic DEFAULT VALUES;         -- 55000 table ic has no Hi/Lo key  HINT: SELECT hilo_create_key('ic')
SELECT hilo_create_key('ic');          -- 22023 again: circle
-- Expected: the default is recognised (or hilo_create_key(t,col) refuses with a hint saying the
-- default must be written hilo_next('ic') without a cast).

-- Same circle for hilo_next('t'::text) (resolved through the implicit text -> regclass cast; the
-- stripped Const is text and its pointer is read as an OID by DatumGetObjectId):
CREATE TABLE tx2 (id bigint PRIMARY KEY DEFAULT hilo_next('tx2'::text));
SELECT hilo_create_key('tx2');         -- 22023 no column of table tx2 defaults to hilo_next('tx2')

-- Related: the hint after a LIKE copy makes a sequence that nothing draws from
-- (hilo_create_key(t, col) does not check that col's default calls hilo_next(t)):
CREATE TABLE lk_src (id bigint PRIMARY KEY DEFAULT hilo_next('lk_src'), v text);
SELECT hilo_create_key('lk_src');
CREATE TABLE lk_copy (LIKE lk_src INCLUDING ALL);
SELECT hilo_create_key('lk_copy');        -- 22023 ... HINT: Name the column: hilo_create_key('lk_copy', 'id')
SELECT hilo_create_key('lk_copy', 'id');  -- "succeeds": lk_copy_id_seq
INSERT INTO lk_copy(v) VALUES ('c') RETURNING id;   -- drawn from lk_src's key; lk_copy_id_seq never used
-- Expected: the hint says the default names lk_src (ALTER ... SET DEFAULT hilo_next('lk_copy')).
