package io.snowflakec.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.snowflakec.Layout;
import io.snowflakec.Parts;
import io.snowflakec.Snowflake;
import io.snowflakec.hibernate.example.ProductStore;
import io.snowflakec.testing.ChildJvm;
import io.snowflakec.testing.Postgres;
import io.snowflakec.testing.WriterReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example of docs/integrations/java-hibernate.md on a real PostgreSQL server: three processes,
 * each with a worker of its own from the host's pool, add products to one table.
 */
class SnowflakeIdPostgresTest {
  private static final int PROCESSES = 3;
  private static final int ROWS_PER_PROCESS = 300;
  // This JVM's store holds worker 31: the pool passes over it.
  private static final String READER_WORKER = "31";

  @Test
  void processesOfTheirOwnWorkersAddDistinctKeys(@TempDir Path tmp) throws Exception {
    String url = Postgres.jdbcUrl();
    Path state = tmp.resolve("state");
    // Creates the table before the writers start, and reads it back after them.
    try (ProductStore reader = new ProductStore(url, READER_WORKER, state)) {
      List<Long> before = reader.allIds();
      List<ChildJvm> writers = new ArrayList<>();
      for (int p = 0; p < PROCESSES; p++) {
        writers.add(
            ChildJvm.start(
                ProductWriter.class,
                url,
                state.toString(),
                "" + ROWS_PER_PROCESS,
                tmp.resolve("meet").toString(),
                "" + PROCESSES,
                tmp.resolve("writer-" + p).toString()));
      }
      for (ChildJvm writer : writers) {
        writer.finish();
      }

      Layout twitter = Layout.preset("twitter");
      Set<Long> workers = new HashSet<>();
      Set<Long> written = new HashSet<>();
      for (int p = 0; p < PROCESSES; p++) {
        WriterReport report = WriterReport.read(tmp.resolve("writer-" + p));
        assertTrue(workers.add(report.node()), "two processes held worker " + report.node());
        assertNotEquals(Long.parseLong(READER_WORKER), report.node());
        assertEquals(ROWS_PER_PROCESS, report.keys().size());
        for (long id : report.keys()) {
          Parts parts = Snowflake.decode(id, twitter);
          assertEquals(1, parts.get("datacenter"), () -> id + " datacenter");
          assertEquals(report.node(), parts.get("worker"), () -> id + " is not its writer's");
          assertTrue(written.add(id), () -> id + " returned twice");
        }
      }

      List<Long> stored = new ArrayList<>(reader.allIds());
      stored.removeAll(before);
      assertEquals(PROCESSES * ROWS_PER_PROCESS, stored.size(), "rows added");
      assertEquals(stored.size(), new HashSet<>(stored).size(), "duplicate keys in the table");
      assertEquals(written, new HashSet<>(stored), "the table holds the keys the writers got");
    }
  }
}
