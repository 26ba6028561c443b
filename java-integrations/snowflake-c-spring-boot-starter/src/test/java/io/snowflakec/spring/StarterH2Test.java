package io.snowflakec.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.snowflakec.Generator;
import io.snowflakec.Layout;
import io.snowflakec.Parts;
import io.snowflakec.Snowflake;
import io.snowflakec.Stats;
import io.snowflakec.hibernate.SnowflakeIdGenerators;
import io.snowflakec.spring.example.Order;
import io.snowflakec.spring.example.OrderRepository;
import io.snowflakec.spring.example.ShopApplication;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The example application of docs/integrations/java-spring-boot.md on an embedded H2. */
@SpringBootTest(classes = {ShopApplication.class, Meters.class})
class StarterH2Test {
  private static final int THREADS = 4;
  private static final int ROWS_PER_THREAD = 100;

  @Autowired Generator generator;
  @Autowired OrderRepository orders;
  @Autowired MeterRegistry meters;

  @Test
  void theBeanIsTheGeneratorOfTheProperties() {
    Layout twitter = Layout.preset("twitter");
    assertEquals(twitter.spec(), generator.layout().spec());
    assertEquals(twitter.epochMs(), generator.layout().epochMs());
    assertEquals(Map.of("datacenter", 1L, "worker", 21L), generator.stats().nodes());
    assertEquals("wait", generator.stats().rollback());
    assertSame(generator, SnowflakeIdGenerators.get(SnowflakeIdGenerators.DEFAULT));
  }

  @Test
  void ordersSavedFromSeveralThreadsGetDistinctKeysOfTheNode() throws Exception {
    long issuedBefore = generator.stats().idsIssued();
    List<Long> saved = new ArrayList<>();
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
                    mine.add(orders.save(new Order("item " + thread + "/" + i)).getId());
                  }
                  return mine;
                }));
      }
      for (Future<List<Long>> part : parts) {
        saved.addAll(part.get());
      }
    } finally {
      pool.shutdown();
    }

    Set<Long> stored = new HashSet<>();
    for (Order order : orders.findAllById(saved)) {
      stored.add(order.getId());
    }
    assertEquals(THREADS * ROWS_PER_THREAD, stored.size(), "distinct keys read back");
    assertEquals(new HashSet<>(saved), stored);
    Layout twitter = Layout.preset("twitter");
    for (long id : stored) {
      Parts p = Snowflake.decode(id, twitter);
      assertEquals(1, p.get("datacenter"));
      assertEquals(21, p.get("worker"));
    }
    // Every counter and gauge of the core's stats table is a meter.
    for (String stat : Stats.counters()) {
      assertNotNull(meters.find(meter(stat)).functionCounter(), stat);
    }
    for (String stat : Stats.gauges()) {
      assertNotNull(meters.find(meter(stat)).gauge(), stat);
    }
    assertTrue(Stats.counters().contains("rollbacks_refused"), "the counters of the table");
    assertEquals(
        generator.stats().lastTimeMs(),
        meters.get("snowflake.c.last.time.ms").gauge().value(),
        1000,
        "a gauge read from the stats");
    double issued = meters.get("snowflake.c.ids.issued").functionCounter().count();
    assertTrue(
        issued >= issuedBefore + THREADS * ROWS_PER_THREAD,
        "snowflake.c.ids.issued " + issued + " after " + issuedBefore);
  }

  private static String meter(String stat) {
    return "snowflake.c." + stat.replace('_', '.');
  }
}
