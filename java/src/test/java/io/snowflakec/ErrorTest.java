package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input gets the right exception, with the status and a message — never an ID. */
class ErrorTest {
  static <T extends SnowflakeException> T expect(
      Class<T> type, String status, org.junit.jupiter.api.function.Executable call) {
    T e = assertThrows(type, call);
    assertEquals(status, e.statusName());
    assertTrue(e.getMessage().length() > 10, "a message that says what to do: " + e.getMessage());
    return e;
  }

  @Test
  void invalidLayouts() {
    InvalidLayoutException e =
        expect(
            InvalidLayoutException.class,
            "InvalidLayout",
            () -> Layout.parse("seq:12,time:41", 1704067200000L));
    assertEquals(1, e.status());
    expect(
        InvalidLayoutException.class, "InvalidLayout", () -> Layout.parse("time:41,worker:10", 0L));
    expect(
        InvalidLayoutException.class,
        "InvalidLayout",
        () -> Layout.parse("time:60,worker:10,seq:12", 0L));
    expect(
        InvalidLayoutException.class,
        "InvalidLayout",
        () -> Layout.parse("time:41,seq:12", Long.MAX_VALUE));
    // A NUL is refused as InvalidArgument with its position, in every language and input.
    InvalidArgumentException nul =
        expect(
            InvalidArgumentException.class,
            "InvalidArgument",
            () -> Layout.parse("time:41\u0000,seq:12", 0L));
    assertTrue(nul.getMessage().contains("position 7"), nul.getMessage());
    expect(
        InvalidLayoutException.class,
        "InvalidLayout",
        () -> Layout.parse("time:41,seq:12", "yesterday"));
    InvalidLayoutException p =
        expect(InvalidLayoutException.class, "InvalidLayout", () -> Layout.preset("snowflake"));
    assertTrue(p.getMessage().contains("twitter"), "lists the presets: " + p.getMessage());
    expect(
        InvalidLayoutException.class,
        "InvalidLayout",
        () -> Generator.builder().preset("nope").build());
    expect(
        InvalidLayoutException.class,
        "InvalidLayout",
        () -> Generator.builder().layout("time:41,worker:10").epoch(0L).build());
  }

  @Test
  void idsThatDoNotFit() {
    Layout twitter = Layout.preset("twitter");
    expect(InvalidArgumentException.class, "InvalidArgument", () -> Snowflake.decode(-1L, twitter));
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Snowflake.decode(Long.MIN_VALUE, twitter));
    Layout narrow = Layout.parse("time:30@1s,worker:2,seq:8", 1704067200000L);
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Snowflake.decode(1L << 45, narrow));
    for (String bad :
        new String[] {"", "-5", "+5", " 5", "5x", "18446744073709551616", "9223372036854775808"}) {
      expect(InvalidArgumentException.class, "InvalidArgument", () -> Snowflake.parseId(bad));
      expect(
          InvalidArgumentException.class, "InvalidArgument", () -> Snowflake.decode(bad, twitter));
    }
    assertEquals(Long.MAX_VALUE, Snowflake.parseId("9223372036854775807"));
  }

  @Test
  void badEncodeAndRange() {
    Layout discord = Layout.preset("discord");
    long t = 1462015105796L;
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Snowflake.encode(discord, t, Map.of("worker", 1L, "process", 0L)));
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Snowflake.encode(discord, t, Map.of("worker", 32L, "process", 0L, "seq", 0L)));
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Snowflake.encode(discord, t, Map.of("worker", -1L, "process", 0L, "seq", 0L)));
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () ->
            Snowflake.encode(
                discord, t, Map.of("worker", 1L, "process", 0L, "seq", 0L, "shard", 1L)));
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () ->
            Snowflake.encode(
                discord, Long.MAX_VALUE, Map.of("worker", 1L, "process", 0L, "seq", 0L)));
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Snowflake.encode(discord, 0L, Map.of("worker", 1L, "process", 0L, "seq", 0L)));
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Snowflake.range(discord, t, t - 10_000));
  }

  /**
   * A null layout is bad input like any other: a typed {@link InvalidArgumentException} saying what
   * to give, not a bare NullPointerException (decode, encode and range give the core's message for
   * a layout not named: none is assumed).
   */
  @Test
  void aNullLayoutIsAnInvalidArgument() {
    Layout none = null;
    for (org.junit.jupiter.api.function.Executable call :
        new org.junit.jupiter.api.function.Executable[] {
          () -> Snowflake.decode(175928847299117063L, none),
          () -> Snowflake.decode("175928847299117063", none),
          () -> Snowflake.decode("0Czks0tP37X", "base62", none),
          () -> Snowflake.encode(none, 1462015105796L, Map.of("worker", 1L)),
          () -> Snowflake.encode(none, java.time.Instant.EPOCH, Map.of("worker", 1L)),
          () -> Snowflake.range(none, 0L, 1L),
          () -> Snowflake.range(none, java.time.Instant.EPOCH, java.time.Instant.MAX),
        }) {
      InvalidArgumentException e = expect(InvalidArgumentException.class, "InvalidArgument", call);
      assertTrue(e.getMessage().startsWith("no layout given: name the one"), e.getMessage());
    }
    InvalidArgumentException layout =
        expect(
            InvalidArgumentException.class,
            "InvalidArgument",
            () -> Generator.builder().layout((Layout) null));
    assertTrue(
        layout.getMessage().contains("Generator.Builder.layout is null"), layout.getMessage());
    InvalidArgumentException preset =
        expect(
            InvalidArgumentException.class,
            "InvalidArgument",
            () -> Generator.builder().preset(null));
    assertTrue(
        preset.getMessage().contains("Generator.Builder.preset is null"), preset.getMessage());
  }

  @Test
  void badGeneratorOptions(@TempDir Path tmp) throws Exception {
    InvalidArgumentException missing =
        expect(
            InvalidArgumentException.class,
            "InvalidArgument",
            () -> Generator.builder().preset("twitter").node("worker", 1).build());
    // The core's messages name options as Java does: stateDir, not state_dir.
    assertTrue(
        missing.getMessage().contains("datacenter=auto with a stateDir")
            && !missing.getMessage().contains("state_dir"),
        missing.getMessage());
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () ->
            Generator.builder().preset("twitter").node("worker", 1).node("datacenter", 32).build());
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Generator.builder().preset("twitter").node("worker", -1).build());
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Generator.builder().preset("twitter").node("worker", "seven").build());
    expect(
        SnowflakeException.class,
        "InvalidArgument",
        () -> Generator.builder().preset("twitter").rollback("sometimes").build());
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Generator.builder().preset("twitter").timeSource("sundial").build());
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Generator.builder().preset("twitter").maxWait(Duration.ofMillis(-1)).build());
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Generator.builder().layout("time:41,worker:10,seq:12").node("worker", 1).build());
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () ->
            Generator.builder()
                .preset("twitter")
                .node("datacenter", 1)
                .node("worker", 1)
                .rollback("clock")
                .build());
    // auto needs a state directory
    expect(
        SnowflakeException.class,
        "InvalidArgument",
        () -> Generator.builder().preset("default").node("worker", "auto").build());
    // a state "directory" that is a file
    Path file = Files.writeString(tmp.resolve("not-a-dir"), "x");
    expect(
        StateErrorException.class,
        "StateError",
        () -> Generator.builder().preset("default").node("worker", 1).stateDir(file).build());
    try (Generator g =
        Generator.builder().preset("default").node("worker", 1).guard(false).build()) {
      expect(InvalidArgumentException.class, "InvalidArgument", () -> g.nextIds(-1));
      assertThrows(IndexOutOfBoundsException.class, () -> g.nextIds(new long[4], 2, 3));
    }
  }

  @Test
  void poolFullAndHeldWorkers(@TempDir Path tmp) {
    Layout tiny = RunEpoch.layout("time:41@1ms,worker:1,seq:12");
    try (Generator a =
            Generator.builder().layout(tiny).node("worker", "auto").stateDir(tmp).build();
        Generator b =
            Generator.builder().layout(tiny).node("worker", "auto").stateDir(tmp).build()) {
      assertEquals("pool", a.stats().nodeSources().get("worker"));
      assertTrue(!a.stats().nodes().get("worker").equals(b.stats().nodes().get("worker")));
      expect(
          WorkerUnavailableException.class,
          "WorkerUnavailable",
          () -> Generator.builder().layout(tiny).node("worker", "auto").stateDir(tmp).build());
      expect(
          WorkerUnavailableException.class,
          "WorkerUnavailable",
          () ->
              Generator.builder()
                  .layout(tiny)
                  .node("worker", a.stats().nodes().get("worker"))
                  .stateDir(tmp)
                  .build());
    }
    // released on close
    try (Generator c =
        Generator.builder().layout(tiny).node("worker", "auto").stateDir(tmp).build()) {
      assertEquals("pool", c.stats().nodeSources().get("worker"));
    }
  }

  @Test
  void clockAndTimeErrors() {
    try (Generator g =
        Generator.builder()
            .preset("twitter")
            .node("datacenter", 1)
            .node("worker", 1)
            .guard(false)
            .rollback("error")
            .build()) {
      long now = 1_700_000_000_000_000L;
      assertTrue(g.nextIdAt(now).id() > 0);
      ClockMovedBackwardsException e =
          expect(
              ClockMovedBackwardsException.class,
              "ClockMovedBackwards",
              () -> g.nextIdAt(now - 50_000));
      assertEquals(3, e.status());
      assertEquals(1, g.stats().rollbacksRefused());
      Generator.Batch b = g.nextIdsAt(now - 50_000, new long[4], 0, 4);
      assertEquals(0, b.filled());
      assertEquals("ClockMovedBackwards", b.error().statusName());
    }
    // baidu's 28-bit seconds ran out in 2024: never an ID, always TimeExhausted
    try (Generator g = Generator.builder().preset("baidu").node("worker", 1).guard(false).build()) {
      expect(TimeExhaustedException.class, "TimeExhausted", g::nextId);
      expect(TimeExhaustedException.class, "TimeExhausted", () -> g.nextIds(10));
    }
    // A 64-bit layout whose IDs passed 2^63 no longer fits a Java long.
    try (Generator g =
        Generator.builder()
            .layout(Layout.parse("time:41@1ms,worker:11,seq:12", 0L))
            .node("worker", 2047)
            .guard(false)
            .build()) {
      TimeExhaustedException e = expect(TimeExhaustedException.class, "TimeExhausted", g::nextId);
      assertTrue(e.getMessage().contains("signed"), e.getMessage());
    }
  }

  @Test
  void nulInsideAnIdIsRefusedWithItsPosition() {
    Layout discord = Layout.preset("discord");
    String[][] cases = {{"5\0garbage", "1"}, {"\u0000175928847299117063", "0"}, {"5\0", "1"}};
    for (String[] c : cases) {
      InvalidArgumentException e =
          expect(
              InvalidArgumentException.class,
              "InvalidArgument",
              () -> Snowflake.decode(c[0], discord));
      assertTrue(e.getMessage().contains("NUL byte at position " + c[1]), e.getMessage());
    }
  }

  @Test
  void nulInsideOtherTextIsRefusedWithItsPosition() {
    org.junit.jupiter.api.function.Executable[] calls = {
      () -> Layout.parse("time:41@1ms,worker:10,seq:12\0,x:1", 0L),
      () -> Layout.preset("twitter\0x"),
      () -> Layout.parse("time:41@1ms,worker:10,seq:12", "2024-01-01\0x"),
      () -> Generator.builder().node("worker", 1).rollback("wait\0x").build(),
      () -> Generator.builder().node("worker", "3\0x").build(),
      () -> Generator.builder().node("wor\0ker", 3).build(),
    };
    for (org.junit.jupiter.api.function.Executable call : calls) {
      InvalidArgumentException e = expect(InvalidArgumentException.class, "InvalidArgument", call);
      assertTrue(e.getMessage().contains("NUL byte at position"), e.getMessage());
    }
  }

  @Test
  void durationsRoundUpToWholeMilliseconds() {
    long[][] cases = {{1, 1}, {500_000, 1}, {1_000_001, 2}, {0, 0}, {2_000_000, 2}};
    for (long[] c : cases) {
      Duration d = Duration.ofNanos(c[0]);
      try (Generator g =
          Generator.builder()
              .preset("twitter")
              .node("datacenter", 1)
              .node("worker", 3)
              .guard(false)
              .maxWait(d)
              .maxDrift(d)
              .stateReserve(c[0] == 0 ? null : d)
              .build()) {
        assertEquals(c[1], g.stats().maxWaitMs(), d.toString());
        assertEquals(c[1], g.stats().maxDriftMs(), d.toString());
      }
    }
    InvalidArgumentException e =
        expect(
            InvalidArgumentException.class,
            "InvalidArgument",
            () -> Generator.builder().node("worker", 1).maxWait(Duration.ofNanos(-1)).build());
    assertTrue(e.getMessage().contains("maxWait"), e.getMessage());
    e =
        expect(
            InvalidArgumentException.class,
            "InvalidArgument",
            () ->
                Generator.builder()
                    .node("worker", 1)
                    .stateReserve(Duration.ofHours(1).plusNanos(1))
                    .build());
    assertTrue(e.getMessage().contains("stateReserve"), e.getMessage());
    // No default hides in 0: a reserve of 0 is refused, null is the default.
    expect(
        InvalidArgumentException.class,
        "InvalidArgument",
        () -> Generator.builder().node("worker", 1).stateReserve(Duration.ZERO).build());
  }
}
