// The real Hibernate 3.6 (Debian's libhibernate3-java) keying rows with its
// sequence Hi/Lo generators, beside SQL sessions that key rows of the same
// tables with DEFAULT hilo_next('<the sequence>', '<formula>').  Run by
// test/t/051_hibernate.pl:
//   java -cp <hibernate and its dependencies> HibernateHilo URL USER WHO ROWS MAX_LO
// inserts ROWS rows into each of orm_seqhilo (generator "seqhilo":
// orm_seqhilo_seq, hi * (max_lo + 1) + lo) and orm_pooled
// (SequenceStyleGenerator, optimizer "pooled", increment MAX_LO:
// orm_pooled_seq, v - MAX_LO .. v - 1 in 3.6), one transaction per row, with
// who = WHO.  The mapping is dynamic-map (no entity classes).  Prints one
// "ok <check>" or "not ok <check>: <why>" line per check.
import java.util.HashMap;
import java.util.Map;

import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;

public class HibernateHilo {
    static String mapping(int maxLo) {
        return "<?xml version=\"1.0\"?>\n"
            + "<!DOCTYPE hibernate-mapping PUBLIC \"-//Hibernate/Hibernate Mapping DTD 3.0//EN\""
            + " \"http://www.hibernate.org/dtd/hibernate-mapping-3.0.dtd\">\n"
            + "<hibernate-mapping>\n"
            + "  <class entity-name=\"OrmSeqHilo\" table=\"orm_seqhilo\">\n"
            + "    <id name=\"id\" column=\"id\" type=\"long\">\n"
            + "      <generator class=\"seqhilo\">\n"
            + "        <param name=\"sequence\">orm_seqhilo_seq</param>\n"
            + "        <param name=\"max_lo\">" + maxLo + "</param>\n"
            + "      </generator>\n"
            + "    </id>\n"
            + "    <property name=\"who\" column=\"who\" type=\"string\"/>\n"
            + "  </class>\n"
            + "  <class entity-name=\"OrmPooled\" table=\"orm_pooled\">\n"
            + "    <id name=\"id\" column=\"id\" type=\"long\">\n"
            + "      <generator class=\"org.hibernate.id.enhanced.SequenceStyleGenerator\">\n"
            + "        <param name=\"sequence_name\">orm_pooled_seq</param>\n"
            + "        <param name=\"increment_size\">" + maxLo + "</param>\n"
            + "        <param name=\"optimizer\">pooled</param>\n"
            + "      </generator>\n"
            + "    </id>\n"
            + "    <property name=\"who\" column=\"who\" type=\"string\"/>\n"
            + "  </class>\n"
            + "</hibernate-mapping>\n";
    }

    public static void main(String[] args) throws Exception {
        String url = args[0], user = args[1], who = args[2];
        int rows = Integer.parseInt(args[3]), maxLo = Integer.parseInt(args[4]);
        Configuration cfg = new Configuration()
            .setProperty("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect")
            .setProperty("hibernate.connection.driver_class", "org.postgresql.Driver")
            .setProperty("hibernate.connection.url", url)
            .setProperty("hibernate.connection.username", user)
            .setProperty("hibernate.connection.pool_size", "2")
            .setProperty("hibernate.default_entity_mode", "dynamic-map")
            .addXML(mapping(maxLo));
        SessionFactory sf = cfg.buildSessionFactory();
        int written = 0;
        String error = "";
        try {
            for (int i = 0; i < rows; i++) {
                for (String entity : new String[] {"OrmSeqHilo", "OrmPooled"}) {
                    Session s = sf.openSession();
                    Transaction tx = s.beginTransaction();
                    Map<String, Object> row = new HashMap<>();
                    row.put("who", who);
                    s.save(entity, row);
                    tx.commit();
                    s.close();
                    written++;
                }
            }
        } catch (Exception e) {
            error = e.toString();
        }
        sf.close();
        System.out.println((written == 2 * rows ? "ok " : "not ok ") + who + " wrote " + written + " rows"
            + (error.isEmpty() ? "" : ": " + error));
    }
}
