// timeuuid through pgjdbc 42.5 (Debian's libpostgresql-jdbc-java).  Run as a
// single-file program: java -cp postgresql.jar JdbcTimeuuid.java URL.  Prints
// one "ok <check>" or "not ok <check>: <why>" line per check.  Run by
// test/t/050_drivers.pl.
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

public class JdbcTimeuuid {
    static boolean failed = false;

    static void check(String name, boolean cond, String why) {
        System.out.println((cond ? "ok " : "not ok ") + name + (cond ? "" : ": " + why));
        if (!cond) failed = true;
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0]); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS jdbc_events");
            s.execute("CREATE TABLE jdbc_events (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), n int)");
            s.execute("INSERT INTO jdbc_events (n) SELECT g FROM generate_series(1, 10) g");
            UUID fifth;
            try (ResultSet r = s.executeQuery("SELECT id::text FROM jdbc_events WHERE n = 5")) {
                r.next();
                fifth = UUID.fromString(r.getString(1));
            }

            // setObject(UUID) sends a uuid parameter: every comparison takes it.
            try (PreparedStatement p = c.prepareStatement("SELECT n FROM jdbc_events WHERE id = ?")) {
                p.setObject(1, fifth);
                try (ResultSet r = p.executeQuery()) {
                    check("setObject(UUID): WHERE id = ?", r.next() && r.getInt(1) == 5, "no row");
                }
            }
            try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM jdbc_events WHERE id > ?")) {
                p.setObject(1, fifth);
                try (ResultSet r = p.executeQuery()) {
                    r.next();
                    check("setObject(UUID): WHERE id > ? (time order)", r.getInt(1) == 5, String.valueOf(r.getInt(1)));
                }
            }
            // Many ids at once: a uuid[] parameter, through the timeuuid index
            // (seqscan off: as on a big table).
            UUID ninth;
            try (ResultSet r = s.executeQuery("SELECT id::text FROM jdbc_events WHERE n = 9")) {
                r.next();
                ninth = UUID.fromString(r.getString(1));
            }
            s.execute("SET enable_seqscan = off");
            try (PreparedStatement p = c.prepareStatement("SELECT n FROM jdbc_events WHERE id = ANY(?) ORDER BY id")) {
                p.setArray(1, c.createArrayOf("uuid", new UUID[] {ninth, fifth}));
                try (ResultSet r = p.executeQuery()) {
                    boolean rows = r.next() && r.getInt(1) == 5 && r.next() && r.getInt(1) == 9 && !r.next();
                    check("setArray(createArrayOf(\"uuid\", UUID[])): WHERE id = ANY(?), through the index", rows, "wrong rows");
                }
            }
            s.execute("RESET enable_seqscan");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO jdbc_events (id, n) VALUES (?, 11)")) {
                p.setObject(1, UUID.fromString("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"));
                check("setObject(UUID) into a timeuuid column", p.executeUpdate() == 1, "not inserted");
            }
            // A version 4 UUID compares (no timeuuid equals it); only a
            // timeuuid column refuses it.
            try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM jdbc_events WHERE id = ?")) {
                p.setObject(1, UUID.randomUUID());
                try (ResultSet r = p.executeQuery()) {
                    r.next();
                    check("a version 4 UUID parameter finds no row, without an error", r.getInt(1) == 0, String.valueOf(r.getInt(1)));
                }
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO jdbc_events (id, n) VALUES (?, 12)")) {
                p.setObject(1, UUID.randomUUID());
                p.executeUpdate();
                check("a version 4 UUID is refused by a timeuuid column", false, "no error");
            } catch (SQLException e) {
                check("a version 4 UUID is refused by a timeuuid column", "22023".equals(e.getSQLState()), e.getSQLState());
            }

            // Results: pgjdbc maps by type OID; timeuuid is not uuid's OID.
            try (ResultSet r = s.executeQuery("SELECT id FROM jdbc_events WHERE n = 5")) {
                r.next();
                Object o = r.getObject(1);
                check("without the recipe getObject() gives a PGobject", o instanceof org.postgresql.util.PGobject,
                      o.getClass().getName());
                // The recipe: UUID.fromString(getString()), or select id::uuid.
                check("UUID.fromString(getString())", fifth.equals(UUID.fromString(r.getString(1))), r.getString(1));
            }
            try (ResultSet r = s.executeQuery("SELECT id::uuid FROM jdbc_events WHERE n = 5")) {
                r.next();
                check("id::uuid: getObject(i, UUID.class)", fifth.equals(r.getObject(1, UUID.class)), "mismatch");
            }

            // New tables: uuid DEFAULT uuidv7_next(), no recipe: a java.util.UUID.
            s.execute("DROP TABLE IF EXISTS jdbc_orders");
            s.execute("CREATE TABLE jdbc_orders (id uuid PRIMARY KEY DEFAULT uuidv7_next(), n int)");
            UUID order;
            try (PreparedStatement p = c.prepareStatement("INSERT INTO jdbc_orders (n) VALUES (1)", new String[] {"id"})) {
                p.executeUpdate();
                try (ResultSet r = p.getGeneratedKeys()) {
                    r.next();
                    order = r.getObject(1, UUID.class);
                    check("uuid DEFAULT uuidv7_next(): getGeneratedKeys() gives a UUID", order.version() == 7, order.toString());
                }
            }
            try (PreparedStatement p = c.prepareStatement("SELECT n FROM jdbc_orders WHERE id = ?")) {
                p.setObject(1, order);
                try (ResultSet r = p.executeQuery()) {
                    check("uuid: setObject(UUID) finds the row", r.next() && r.getInt(1) == 1, "no row");
                }
            }
        }
        System.exit(failed ? 1 : 0);
    }
}
