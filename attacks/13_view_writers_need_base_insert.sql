-- 13: a view as the write interface (auto-updatable view, INSTEAD OF trigger, rule) cannot be
--     used without granting INSERT on the base table itself, because the table's default runs
--     hilo_next() as the inserting role and a draw requires INSERT on the table. The grant that
--     makes the view work lets the role bypass the view. With a serial the role needs only USAGE
--     on the sequence, which lets it insert nothing. docs/hilo.md ("Who may draw") calls the two
--     "as a serial's needs USAGE on its sequence", which they are not.
-- Severity: MEDIUM (privilege design: forces an over-grant; INSERT on any single column also
--     passes the draw check, i.e. still direct inserts with chosen ids).
-- Expected: a privilege on the key's sequence (USAGE, as nextval) suffices to draw, or the docs
--     give a safe recipe. Actual below.
CREATE ROLE clerk LOGIN;
CREATE TABLE acct (id bigint PRIMARY KEY DEFAULT hilo_next('acct'), owner_name text, balance numeric DEFAULT 0);
SELECT hilo_create_key('acct');
CREATE VIEW open_acct AS SELECT id, owner_name FROM acct;   -- clerks open accounts at balance 0
GRANT INSERT ON open_acct TO clerk;
GRANT USAGE ON SEQUENCE acct_id_seq TO clerk;                -- what a serial would need
SET ROLE clerk;
INSERT INTO open_acct(owner_name) VALUES ('alice');          -- ERROR 42501 permission denied for table acct
RESET ROLE;
GRANT INSERT ON acct TO clerk;                               -- the only way
SET ROLE clerk;
INSERT INTO open_acct(owner_name) VALUES ('alice');          -- ok
INSERT INTO acct(owner_name, balance) VALUES ('mallory', 1000000);   -- and the view is bypassed
RESET ROLE;
SELECT * FROM acct;
