-- scripts/demo.sql: what quickstart.sh shows once the extension is created.
\echo '--- Hi/Lo keys for a table: DEFAULT hilo_next(''orders'')'
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), item text);
INSERT INTO orders (item) VALUES ('apple'), ('pear'), ('plum');
TABLE orders;
