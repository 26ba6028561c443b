package io.snowflakec.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.snowflakec.Layout;
import io.snowflakec.Parts;
import io.snowflakec.Snowflake;
import io.snowflakec.hibernate.example.ProductStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of docs/integrations/java-hibernate.md on an embedded H2 database. */
class SnowflakeIdH2Test {
  private static final int THREADS = 4;
  private static final int ROWS_PER_THREAD = 250;
  private static final long WORKER = 19;

  @Test
  void rowsFromSeveralThreadsGetDistinctKeysOfTheNode(@TempDir Path state) throws Exception {
    List<Long> issued = new ArrayList<>();
    try (ProductStore store =
        new ProductStore("jdbc:h2:mem:products;DB_CLOSE_DELAY=-1", "" + WORKER, state)) {
      assertEquals(WORKER, store.worker());
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<List<Long>>> parts = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          int thread = t;
          parts.add(
              pool.submit(
                  () -> {
                    List<Long> mine = new ArrayList<>();
                    for (int i = 0; i < ROWS_PER_THREAD; i++) {
                      mine.add(store.add("product " + thread + "/" + i));
                    }
                    return mine;
                  }));
        }
        for (Future<List<Long>> part : parts) {
          issued.addAll(part.get());
        }
      } finally {
        pool.shutdown();
      }

      List<Long> stored = store.allIds();
      assertEquals(THREADS * ROWS_PER_THREAD, stored.size());
      Set<Long> distinct = new HashSet<>(stored);
      assertEquals(stored.size(), distinct.size(), "duplicate keys in the table");
      assertEquals(new HashSet<>(issued), distinct, "the table holds the keys handed out");

      Layout twitter = Layout.preset("twitter");
      long now = System.currentTimeMillis();
      for (long id : stored) {
        Parts parts = Snowflake.decode(id, twitter);
        assertEquals(1, parts.get("datacenter"), () -> id + " datacenter");
        assertEquals(WORKER, parts.get("worker"), () -> id + " worker");
        assertTrue(Math.abs(parts.timeMs() - now) < 600_000, () -> id + " time " + parts.time());
      }
      long first = issued.get(0);
      assertEquals("product 0/0", store.find(first).getName());
    }
  }

  @Test
  void anUnregisteredNameIsRefusedWithItsName() {
    SnowflakeId config =
        new SnowflakeId() {
          @Override
          public String generator() {
            return "billing";
          }

          @Override
          public Class<? extends java.lang.annotation.Annotation> annotationType() {
            return SnowflakeId.class;
          }
        };
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> new SnowflakeIdentifierGenerator(config).generate(null, null, null, null));
    assertTrue(e.getMessage().contains("\"billing\""), e.getMessage());
  }
}
