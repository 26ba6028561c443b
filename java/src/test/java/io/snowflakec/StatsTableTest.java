package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stats table says which numbers a monitoring system counts and which it gauges. */
class StatsTableTest {
  @Test
  void everyNumberIsACounterOrAGaugeAndNothingElseIs() {
    try (Generator g = OptionTest.twitter().build()) {
      g.nextId();
      List<String> numbers = new ArrayList<>();
      for (Map.Entry<String, Object> stat : g.stats().asMap().entrySet()) {
        if (stat.getValue() instanceof Long) {
          numbers.add(stat.getKey());
        }
      }
      List<String> both = new ArrayList<>(Stats.counters());
      both.addAll(Stats.gauges());
      assertEquals(numbers.size(), both.size(), "counters " + Stats.counters() + Stats.gauges());
      assertTrue(both.containsAll(numbers), numbers + " against " + both);
      assertTrue(Stats.counters().contains("ids_issued"), "ids_issued only grows");
      assertTrue(Stats.gauges().contains("last_time_ms"), "last_time_ms is a gauge");
      assertTrue(Stats.gauges().contains("clock"), "the clock field goes back to 0");
    }
  }
}
