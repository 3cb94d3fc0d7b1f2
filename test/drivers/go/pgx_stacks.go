// id_gen's ids through Go's pgx v4 (Debian's golang-github-jackc-pgx-v4-dev,
// built offline: GO111MODULE=off GOPATH=/usr/share/gocode).  Connects with
// the libpq environment (PGHOST, PGPORT, PGDATABASE, PGUSER); prints one
// "ok <check>" or "not ok <check>: <why>" line per check.  Run by
// test/t/052_stacks.pl; docs/drivers.md quotes it.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgtype"
	"github.com/jackc/pgx/v4"
)

var failed bool

func check(name string, cond bool, why ...interface{}) {
	if cond {
		fmt.Println("ok " + name)
	} else {
		fmt.Println("not ok "+name+":", fmt.Sprint(why...))
		failed = true
	}
}

// registerTimeuuid is the recipe for timeuuid columns: timeuuid has uuid's
// binary format, so pgx may read and write it as a uuid ([16]byte,
// pgtype.UUID, or a type that scans from those).  Call it on every new
// connection (pgxpool.Config.AfterConnect).
func registerTimeuuid(ctx context.Context, conn *pgx.Conn) error {
	var oid uint32
	if err := conn.QueryRow(ctx, "SELECT 'timeuuid'::regtype::oid").Scan(&oid); err != nil {
		return err
	}
	conn.ConnInfo().RegisterDataType(pgtype.DataType{Value: &pgtype.UUID{}, Name: "timeuuid", OID: oid})
	return nil
}

func main() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "")
	if err != nil {
		fmt.Println("not ok connect:", err)
		os.Exit(1)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		if _, err := conn.Exec(ctx, sql); err != nil {
			fmt.Println("not ok "+sql+":", err)
			os.Exit(1)
		}
	}

	// 1. New tables: uuid DEFAULT uuidv7_next(); pgx knows uuid.
	exec("DROP TABLE IF EXISTS go_items, go_orders, go_events, go_big")
	exec("CREATE TABLE go_orders (id uuid PRIMARY KEY DEFAULT uuidv7_next(), n int)")
	exec("CREATE TABLE go_items (id uuid PRIMARY KEY DEFAULT uuidv7_next(), order_id uuid REFERENCES go_orders)")
	var order [16]byte
	err = conn.QueryRow(ctx, "INSERT INTO go_orders (n) VALUES (1) RETURNING id").Scan(&order)
	check("uuid: RETURNING id scans into [16]byte", err == nil && order[6]>>4 == 7, err)
	_, err = conn.Exec(ctx, "INSERT INTO go_items (order_id) VALUES ($1), ($1)", order)
	check("uuid: a [16]byte parameter as foreign key", err == nil, err)
	var n int
	err = conn.QueryRow(ctx, "SELECT count(*) FROM go_items WHERE order_id = $1", order).Scan(&n)
	check("uuid: WHERE order_id = $1", err == nil && n == 2, n, err)

	// 2. timeuuid columns.  Without the recipe pgx knows neither how to
	// encode a [16]byte for a timeuuid parameter nor how to scan one.
	exec("CREATE TABLE go_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)")
	var first, second [16]byte
	err = conn.QueryRow(ctx, "INSERT INTO go_events (n) VALUES (1) RETURNING id").Scan(&first)
	check("without the recipe a timeuuid does not scan into [16]byte", err != nil, "it did")
	_, err = conn.Exec(ctx, "SELECT 1 FROM go_events WHERE id = $1", first)
	check("without the recipe a [16]byte timeuuid parameter is refused", err != nil, "it was taken")

	if err := registerTimeuuid(ctx, conn); err != nil {
		fmt.Println("not ok registerTimeuuid:", err)
		os.Exit(1)
	}
	err = conn.QueryRow(ctx, "SELECT id FROM go_events WHERE n = 1").Scan(&first)
	check("with the recipe a timeuuid scans into [16]byte", err == nil && first[6]>>4 == 7, err)
	err = conn.QueryRow(ctx, "INSERT INTO go_events (n) VALUES (2) RETURNING id").Scan(&second)
	check("with the recipe: RETURNING id", err == nil, err)
	err = conn.QueryRow(ctx, "SELECT n FROM go_events WHERE id = $1", second).Scan(&n)
	check("with the recipe: WHERE id = $1 with a [16]byte", err == nil && n == 2, n, err)
	err = conn.QueryRow(ctx, "SELECT count(*) FROM go_events WHERE id > $1", first).Scan(&n)
	check("with the recipe: WHERE id > $1 (time order)", err == nil && n == 1, n, err)
	// Many ids at once: a uuid[] parameter, through the timeuuid index
	// (seqscan off: as on a big table).
	exec("SET enable_seqscan = off")
	var ns []int32
	err = conn.QueryRow(ctx, "SELECT array_agg(n ORDER BY id) FROM go_events WHERE id = ANY($1::uuid[])",
		[][16]byte{second, first}).Scan(&ns)
	exec("RESET enable_seqscan")
	check("WHERE id = ANY($1::uuid[]) with a [][16]byte, through the index",
		err == nil && len(ns) == 2 && ns[0] == 1 && ns[1] == 2, ns, err)
	var u pgtype.UUID
	err = conn.QueryRow(ctx, "SELECT id FROM go_events WHERE n = 2").Scan(&u)
	check("with the recipe a timeuuid scans into pgtype.UUID", err == nil && u.Bytes == second, err)
	_, err = conn.Exec(ctx, "INSERT INTO go_events (id, n) VALUES ($1, 3)", "1ec9414c-232a-6b00-b3c8-9f6bdeced846")
	check("with the recipe a string parameter into a timeuuid column", err == nil, err)

	// 3. bigint: int64, exact.
	exec("CREATE TABLE go_big (id bigint PRIMARY KEY DEFAULT snowflake_next(), n int)")
	var id int64
	var text string
	err = conn.QueryRow(ctx, "INSERT INTO go_big (n) VALUES (1) RETURNING id, id::text").Scan(&id, &text)
	check("bigint snowflake: int64 exact", err == nil && fmt.Sprint(id) == text, id, text, err)
	if failed {
		os.Exit(1)
	}
}
