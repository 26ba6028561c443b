package io.snowflakec.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.snowflakec.Layout;
import io.snowflakec.Parts;
import io.snowflakec.Snowflake;
import io.snowflakec.testing.ChildJvm;
import io.snowflakec.testing.Postgres;
import io.snowflakec.testing.WriterReport;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example application of docs/integrations/java-spring-boot.md with its profile "postgres":
 * three instances at once, each its own process with a worker from the host's pool, save orders
 * into one table of a real PostgreSQL server.
 */
class StarterPostgresTest {
  private static final int PROCESSES = 3;
  private static final int ROWS_PER_PROCESS = 200;

  @Test
  void instancesOfTheApplicationSaveDistinctKeysOfTheirOwnWorkers(@TempDir Path tmp)
      throws Exception {
    String url = Postgres.jdbcUrl();
    Path state = tmp.resolve("state");
    // The table made before the instances start, as a migration would (update then keeps it).
    try (Connection db = DriverManager.getConnection(url);
        Statement ddl = db.createStatement()) {
      ddl.execute("DROP TABLE IF EXISTS orders");
      ddl.execute("CREATE TABLE orders (id bigint PRIMARY KEY, item varchar(255))");
    }
    List<ChildJvm> instances = new ArrayList<>();
    for (int p = 0; p < PROCESSES; p++) {
      instances.add(
          ChildJvm.start(
              OrderWriter.class,
              url,
              state.toString(),
              "" + ROWS_PER_PROCESS,
              tmp.resolve("meet").toString(),
              "" + PROCESSES,
              tmp.resolve("instance-" + p).toString()));
    }
    for (ChildJvm instance : instances) {
      instance.finish();
    }

    Layout twitter = Layout.preset("twitter");
    Set<Long> workers = new HashSet<>();
    Set<Long> saved = new HashSet<>();
    for (int p = 0; p < PROCESSES; p++) {
      WriterReport report = WriterReport.read(tmp.resolve("instance-" + p));
      assertTrue(workers.add(report.node()), "two instances held worker " + report.node());
      assertEquals(ROWS_PER_PROCESS, report.keys().size());
      for (long id : report.keys()) {
        Parts parts = Snowflake.decode(id, twitter);
        // datacenter from application.properties, worker from the pool (the postgres profile).
        assertEquals(1, parts.get("datacenter"), () -> id + " datacenter");
        assertEquals(report.node(), parts.get("worker"), () -> id + " is not its instance's");
        assertTrue(saved.add(id), () -> id + " returned twice");
      }
    }

    List<Long> stored = new ArrayList<>();
    try (Connection db = DriverManager.getConnection(url);
        Statement query = db.createStatement();
        ResultSet rows = query.executeQuery("SELECT id FROM orders")) {
      while (rows.next()) {
        stored.add(rows.getLong(1));
      }
    }
    assertEquals(PROCESSES * ROWS_PER_PROCESS, stored.size(), "rows in the table");
    assertEquals(stored.size(), new HashSet<>(stored).size(), "duplicate keys in the table");
    assertEquals(saved, new HashSet<>(stored), "the table holds the keys the instances got");
  }
}
