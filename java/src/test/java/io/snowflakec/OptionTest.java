package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Options by name: Java values reach the core as its values, and the core answers. */
class OptionTest {
  static Generator.Builder twitter() {
    return Generator.builder()
        .preset("twitter")
        .node("datacenter", 4)
        .node("worker", 5)
        .guard(false)
        .rollback("wait");
  }

  static long maxWaitOf(Object value) {
    try (Generator g = twitter().option("maxWait", value).build()) {
      return g.stats().maxWaitMs();
    }
  }

  @Test
  void javaNumbersAndTextAreDurationsInMs() {
    assertEquals(7, maxWaitOf(7));
    assertEquals(7, maxWaitOf(7L));
    assertEquals(7, maxWaitOf((short) 7));
    assertEquals(3, maxWaitOf(2.5f));
    assertEquals(3, maxWaitOf(2.01));
    assertEquals(9, maxWaitOf(BigInteger.valueOf(9)));
    assertEquals(2, maxWaitOf(new BigDecimal("1.5")));
    assertEquals(1500, maxWaitOf("1.5s"));
    assertEquals(2, maxWaitOf(Duration.ofNanos(1_000_001)));
    assertEquals(1000, maxWaitOf(null), "null: the strategy's default (wait: 1 s)");
    InvalidArgumentException huge =
        assertThrows(
            InvalidArgumentException.class,
            () -> maxWaitOf(BigInteger.ONE.shiftLeft(80)),
            "past a long: still refused by the core");
    assertTrue(huge.getMessage().contains("maxWait"), huge.getMessage());
  }

  @Test
  void anyCasingOfANameAndTheTypedMethodsAgree() {
    for (String name : List.of("maxWait", "max_wait", "MaxWait")) {
      try (Generator g = twitter().option(name, 12).build()) {
        assertEquals(12, g.stats().maxWaitMs(), name);
      }
    }
    try (Generator g = twitter().maxWait(Duration.ofMillis(12)).build()) {
      assertEquals(12, g.stats().maxWaitMs());
    }
    try (Generator g = twitter().timeSource(TimeSource.MONOTONIC).build()) {
      assertEquals("wait", g.stats().rollback());
    }
    // Every option of the core's table has a typed method of its name.
    for (String option : Generator.options()) {
      assertTrue(
          Arrays.stream(Generator.Builder.class.getMethods())
              .anyMatch(m -> m.getName().equals(option) && m.getParameterCount() == 1),
          "Generator.Builder." + option + "(…)");
    }
    assertTrue(Generator.options().contains("stateReserve"), Generator.options().toString());
  }

  @Test
  void theCoreRefusesWhatItDoesNotTake() {
    InvalidArgumentException unknown =
        assertThrows(
            InvalidArgumentException.class, () -> twitter().option("maxWaitMs", 5).build());
    assertTrue(unknown.getMessage().contains("maxWaitMs"), unknown.getMessage());
    // The builder's own arguments have methods of their own: option() takes options alone.
    for (String own : List.of("preset", "layout", "epoch", "node")) {
      InvalidArgumentException e =
          assertThrows(
              InvalidArgumentException.class, () -> twitter().option(own, "twitter").build(), own);
      assertTrue(e.getMessage().contains("unknown option '" + own + "'"), e.getMessage());
    }
    assertThrows(InvalidArgumentException.class, () -> twitter().option("guard", 1).build());
    assertThrows(InvalidArgumentException.class, () -> twitter().option("stateDir", 5).build());
    assertThrows(InvalidArgumentException.class, () -> twitter().rollback("sometimes").build());
    InvalidArgumentException type =
        assertThrows(InvalidArgumentException.class, () -> twitter().option("maxWait", List.of(1)));
    assertTrue(type.getMessage().contains("maxWait"), type.getMessage());
  }

  @Test
  void pathsReachTheCore(@TempDir Path dir) throws Exception {
    Path state = dir.resolve("state");
    try (Generator g =
        Generator.builder()
            .layout(RunEpoch.layout("time:41@1ms,datacenter:5,worker:5,seq:12"))
            .node("datacenter", 6)
            .node("worker", "auto")
            .option("state_dir", state)
            .stateReserve(Duration.ofMillis(250))
            .build()) {
      assertEquals("pool", g.stats().nodeSources().get("worker"));
      try (var files = Files.list(state)) {
        assertTrue(files.findAny().isPresent(), "the pool's files are in " + state);
      }
    }
  }

  @Test
  void theTrioGoesThroughTheCore() {
    Layout twitter = Layout.preset("twitter");
    assertEquals("twitter", twitter.name().orElseThrow());
    assertTrue(Layout.parse("time:41@1ms,worker:10,seq:12", 0L).name().isEmpty());
    assertThrows(
        InvalidArgumentException.class,
        () -> Generator.builder().preset("twitter").epoch(1704067200000L).build());
    assertThrows(
        InvalidArgumentException.class,
        () -> Generator.builder().preset("twitter").layout(twitter).build());
    assertThrows(
        InvalidArgumentException.class,
        () -> Generator.builder().layout("time:41@1ms,worker:10,seq:12").node(1).build());
    try (Generator g =
        Generator.builder()
            .layout(twitter)
            .node("datacenter", 7)
            .node("worker", 7)
            .guard(false)
            .build()) {
      assertEquals(twitter, g.layout());
      assertEquals("twitter", g.layout().describe().get("name"));
    }
  }

  @Test
  void describeIsTheCoresTable() {
    Map<String, Object> d = Layout.parse("time:41@1ms,worker:10,seq:12", "2024-01-01").describe();
    assertEquals(1704067200000L, d.get("epoch_ms"));
    assertEquals("time:41@1ms,worker:10,seq:12", d.get("spec"));
    assertEquals(4096000.0, d.get("ids_per_second"));
    List<?> fields = (List<?>) d.get("fields");
    assertEquals(
        Map.of("name", "worker", "kind", "node", "bits", 10L, "shift", 12L, "max", 1023L),
        fields.get(1));
    Object maxId = Layout.parse("time:41@1ms,worker:11,seq:12", 0L).describe().get("max_id");
    assertEquals(new BigInteger("18446744073709551615"), maxId, "above a long: a BigInteger");
  }
}
