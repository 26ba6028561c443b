package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * Runs every case of every shared vector file (tests/vectors/*.json, folder given by the system
 * property {@code snowflakec.vectors}). The file name picks the case shape.
 *
 * <p>Java IDs are signed longs: a case whose expected ID lies above {@link Long#MAX_VALUE} (the top
 * bit of a 64-bit layout) checks instead that Java rejects it — {@code InvalidArgument} for decode,
 * encode and range, {@code TimeExhausted} for generation — and its name says so. Java's decode,
 * encode and range take a {@link Layout}: a contract case of such a call with no layout named
 * passes a null one, and its name says so too.
 */
class VectorTest {
  static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
  static final ObjectMapper JSON = new ObjectMapper();

  static Path vectorDir() {
    String dir = System.getProperty("snowflakec.vectors");
    assertNotNull(dir, "the system property snowflakec.vectors names tests/vectors");
    return Paths.get(dir);
  }

  static List<Path> vectorFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(vectorDir())) {
      s.filter(p -> p.toString().endsWith(".json"))
          .filter(p -> !p.getFileName().toString().equals("schema.json"))
          .sorted()
          .forEach(files::add);
    }
    assertFalse(files.isEmpty(), "no vector files in " + vectorDir());
    return files;
  }

  @TestFactory
  Stream<DynamicNode> vectors() throws IOException {
    List<DynamicNode> out = new ArrayList<>();
    for (Path file : vectorFiles()) {
      String kind = file.getFileName().toString().replaceFirst("\\.json$", "");
      JsonNode cases = JSON.readTree(file.toFile());
      List<DynamicNode> tests = new ArrayList<>();
      for (int i = 0; i < cases.size(); i++) {
        JsonNode c = cases.get(i);
        String name = "#" + i + " " + c.path("description").asText();
        boolean unsigned = expectsUnsignedId(kind, c);
        if (unsigned) {
          name = "[java: above Long.MAX_VALUE, rejected] " + name;
        }
        if (c.has("for_ids")) {
          name = "[java: a null Layout] " + name;
        }
        tests.add(DynamicTest.dynamicTest(name, runner(kind, c, unsigned)));
      }
      out.add(DynamicContainer.dynamicContainer(file.getFileName().toString(), tests));
    }
    return out.stream();
  }

  private static Executable runner(String kind, JsonNode c, boolean unsigned) {
    switch (kind) {
      case "layouts":
        return () -> runLayout(c);
      case "decode":
        return () -> runDecode(c, unsigned);
      case "encode":
        return () -> runEncode(c, unsigned);
      case "range":
        return () -> runRange(c, unsigned);
      case "generate":
        return () -> runGenerate(c);
      case "durations":
        return () -> runDuration(c);
      case "encodings":
        return () -> runEncoding(c);
      case "contract":
        return () -> ContractVectors.run(c);
      case "claims":
        return () -> runClaim(c);
      case "uuid7":
        return () -> runUuid7(c);
      default:
        return () -> fail("no runner for vector file " + kind + ".json: add one to VectorTest");
    }
  }

  // ---- helpers -------------------------------------------------------------------------

  static boolean aboveLong(String decimal) {
    return decimal.matches("[0-9]+") && new BigInteger(decimal).compareTo(LONG_MAX) > 0;
  }

  /** Whether a passing case expects an ID (or field value) that a Java long cannot hold. */
  static boolean expectsUnsignedId(String kind, JsonNode c) {
    if (c.has("error")) {
      return false;
    }
    switch (kind) {
      case "decode":
      case "encode":
        return aboveLong(c.path("id").asText());
      case "range":
        return aboveLong(c.path("min").asText()) || aboveLong(c.path("max").asText());
      default:
        return false;
    }
  }

  static Layout layoutOf(JsonNode ref) {
    if (ref.has("preset")) {
      return Layout.preset(ref.get("preset").asText());
    }
    return Layout.parse(ref.get("spec").asText(), ref.get("epoch").asText());
  }

  static void expectError(String kind, Executable call, String context) {
    try {
      call.execute();
    } catch (SnowflakeException e) {
      assertEquals(kind, e.statusName(), context + ": " + e.getMessage());
      assertEquals(
          kind + "Exception", e.getClass().getSimpleName().replace("StateError", "StateError"));
      assertFalse(e.getMessage().isEmpty(), "an error has a message");
      return;
    } catch (Throwable t) {
      fail(context + ": expected " + kind + ", got " + t, t);
    }
    fail(context + ": expected " + kind + ", got no error");
  }

  static Map<String, Long> fieldsOf(JsonNode fields) {
    Map<String, Long> out = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = fields.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String v = e.getValue().asText();
      out.put(e.getKey(), aboveLong(v) ? -1L : Long.parseLong(v));
    }
    return out;
  }

  // ---- encodings.json ------------------------------------------------------------------

  /** IDs as the long of the same 64 bits: Java's string forms read a long unsigned. */
  static void runEncoding(JsonNode c) {
    String enc = c.get("encoding").asText();
    if (c.has("error")) {
      Executable call =
          c.has("text")
              ? () -> Snowflake.parse(c.get("text").asText(), enc)
              : () -> Snowflake.format(Long.parseUnsignedLong(c.get("id").asText()), enc);
      expectError(c.get("error").asText(), call, enc);
      try {
        call.execute();
      } catch (Throwable e) {
        for (JsonNode part : c.path("message_has")) {
          assertTrue(
              e.getMessage().contains(part.asText()),
              "'" + part.asText() + "' is not in: " + e.getMessage());
        }
      }
      return;
    }
    long id = Long.parseUnsignedLong(c.get("id").asText());
    if (c.has("text")) {
      assertEquals(id, Snowflake.parse(c.get("text").asText(), enc));
      return;
    }
    String dflt = c.get("default").asText();
    String fixed = c.get("fixed").asText();
    String shortest = c.get("shortest").asText();
    assertEquals(dflt, Snowflake.format(id, enc));
    assertEquals(fixed, Snowflake.format(id, enc, true));
    assertEquals(shortest, Snowflake.format(id, enc, false));
    assertEquals(id, Snowflake.parse(fixed, enc));
    assertEquals(id, Snowflake.parse(shortest, enc));
  }

  // ---- uuid7.json ----------------------------------------------------------------------

  static void runUuid7(JsonNode c) {
    String text = c.get("text").asText();
    if (c.has("error")) {
      expectError(c.get("error").asText(), () -> Snowflake.decodeUuid7(text), "decodeUuid7");
      try {
        Snowflake.decodeUuid7(text);
      } catch (SnowflakeException e) {
        for (JsonNode part : c.get("message_has")) {
          assertTrue(
              e.getMessage().contains(part.asText()),
              "'" + part.asText() + "' is not in: " + e.getMessage());
        }
      }
      return;
    }
    Uuid7 u = Snowflake.decodeUuid7(text);
    assertEquals(c.get("uuid").asText(), u.uuid());
    assertEquals(Long.parseLong(c.get("time_ms").asText()), u.unixMs());
    assertEquals(Long.parseLong(c.get("time_ms").asText()), u.time().toEpochMilli());
    assertEquals(c.get("time").asText(), Snowflake.formatIso(u.unixMs()));
    assertEquals(c.get("rand_a").asInt(), u.randA());
    assertEquals(Long.parseLong(c.get("rand_b").asText()), u.randB());
    assertEquals(c.get("json").asText(), u.toJson());
    // A java.util.UUID is taken as its text, and decodes the same.
    assertEquals(u, Snowflake.decodeUuid7(java.util.UUID.fromString(c.get("uuid").asText())));
  }

  // ---- layouts.json --------------------------------------------------------------------

  static void runLayout(JsonNode c) {
    Executable make =
        c.has("preset")
            ? () -> Layout.preset(c.get("preset").asText())
            : () -> Layout.parse(c.get("spec").asText(), c.get("epoch").asText());
    if (c.has("error")) {
      expectError(c.get("error").asText(), make, "layout");
      return;
    }
    Layout l =
        c.has("preset")
            ? Layout.preset(c.get("preset").asText())
            : Layout.parse(c.get("spec").asText(), c.get("epoch").asText());
    JsonNode x = c.get("expect");
    assertEquals(x.get("spec").asText(), l.spec(), "spec");
    assertEquals(x.get("epoch_ms").asText(), Long.toString(l.epochMs()), "epoch_ms");
    assertEquals(x.get("unit_us").asText(), Long.toString(l.unitUs()), "unit_us");
    assertEquals(x.get("total_bits").asInt(), l.totalBits(), "total_bits");
    JsonNode fs = x.get("fields");
    assertEquals(fs.size(), l.fields().size(), "field count");
    for (int i = 0; i < fs.size(); i++) {
      JsonNode f = fs.get(i);
      Layout.Field g = l.fields().get(i);
      assertEquals(f.get("name").asText(), g.name(), "field " + i + " name");
      assertEquals(f.get("kind").asText(), g.kind().name().toLowerCase(), "field " + i + " kind");
      assertEquals(f.get("bits").asInt(), g.bits(), "field " + i + " bits");
      assertEquals(f.get("shift").asInt(), g.shift(), "field " + i + " shift");
      assertEquals(f.get("max").asText(), Long.toString(g.max()), "field " + i + " max");
      assertEquals(g, l.field(g.name()).orElseThrow());
    }
    assertEquals(x.get("ids_per_second").asDouble(), l.idsPerSecond(), "ids_per_second");
    assertEquals(x.get("node_capacity").asDouble(), l.nodeCapacity(), "node_capacity");
    assertEquals(x.get("time_end_ms").asText(), Long.toString(l.timeEndMs()), "time_end_ms");
    assertEquals(x.get("time_end").asText(), Snowflake.formatIso(l.timeEndMs()), "time_end");
    assertEquals(x.get("max_id").asText(), Long.toUnsignedString(l.maxId()), "max_id");
    // The canonical spec parses back to the same layout.
    assertEquals(l, Layout.parse(l.spec(), l.epochMs()));
  }

  // ---- durations.json ------------------------------------------------------------------

  /**
   * state_reserve shows in no stat: it shows in the state file, whose mark a generator reserves
   * that far ahead of its clock. On a layout of 1 us ticks the mark less the reserve is the tick it
   * was reserved at, which lies between a clock reading before the generator was made and one after
   * the file was read (the keeper may move the mark on meanwhile, always a reserve ahead of the
   * clock).
   */
  static void assertReserve(Duration reserve, long ms) throws IOException {
    Layout layout = Layout.parse("time:52@1us,worker:1,seq:10", 1704067200000L);
    long epochUs = layout.epochMs() * 1000;
    Path dir = Files.createTempDirectory("snowflake-c-reserve");
    try {
      long before = nowUs() - epochUs;
      String state;
      long after;
      Generator g =
          Generator.builder()
              .layout(layout)
              .node("worker", 0)
              .stateDir(dir)
              .guard(false)
              .stateReserve(reserve)
              .build();
      try {
        state = Files.readString(dir.resolve("worker-0.state"));
        after = nowUs() - epochUs;
      } finally {
        g.close();
      }
      Matcher m = Pattern.compile("(?m)^mark (\\d+)$").matcher(state);
      assertTrue(m.find(), "no mark in the state file: " + state);
      long at = Long.parseLong(m.group(1)) - ms * 1000;
      assertTrue(
          before <= at && at <= after,
          String.format(
              "a mark %d ms ahead of tick %d, not within [%d, %d]", ms, at, before, after));
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  /** The wall clock, Unix us. */
  static long nowUs() {
    Instant t = Instant.now();
    return t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
  }

  /**
   * A duration option set by its Java name; its whole ms show in the stats (max_wait, max_drift) or
   * in the state file (state_reserve).
   */
  static void runDuration(JsonNode c) throws IOException {
    String name = Facts.camelCase(c.get("option").asText());
    Duration d =
        Duration.ofSeconds(Long.parseLong(c.get("seconds").asText()), c.get("nanos").asLong());
    Supplier<Generator> build =
        () ->
            Generator.builder()
                .preset("twitter")
                .node("datacenter", 0)
                .node("worker", 0)
                .guard(false)
                .option(name, d)
                .build();
    if (c.has("error")) {
      expectError(c.get("error").asText(), () -> build.get().close(), name + " " + d);
      try {
        build.get().close();
      } catch (SnowflakeException e) {
        assertTrue(e.getMessage().contains(name), "names the option as given: " + e.getMessage());
      }
      return;
    }
    if (c.get("option").asText().equals("state_reserve")) {
      assertReserve(d, Long.parseLong(c.get("ms").asText()));
      return;
    }
    try (Generator g = build.get()) {
      Object ms = g.stats().asMap().get(c.get("option").asText() + "_ms");
      assertNotNull(ms, c.get("option").asText() + "_ms in the stats");
      assertEquals(c.get("ms").asText(), ms.toString(), name + " " + d);
    }
  }

  // ---- decode.json ---------------------------------------------------------------------

  static void runDecode(JsonNode c, boolean unsigned) {
    Layout layout = layoutOf(c.get("layout"));
    String id = c.get("id").asText();
    if (c.has("error")) {
      expectError(c.get("error").asText(), () -> Snowflake.decode(id, layout), "decode " + id);
      return;
    }
    if (unsigned) {
      expectError("InvalidArgument", () -> Snowflake.decode(id, layout), "decode " + id);
      return;
    }
    long value = Long.parseLong(id);
    Parts p = Snowflake.decode(value, layout);
    assertEquals(c.get("json").asText(), p.toJson(), "canonical JSON");
    assertEquals(p, Snowflake.decode(id, layout));
    Map<String, Long> want = fieldsOf(c.get("fields"));
    assertEquals(want, p.fields(), "fields");
    assertEquals(value, p.id());
    // A passing decode case encodes back to its ID.
    assertEquals(value, Snowflake.encode(layout, p.time(), p.fields()), "encode(decode(id))");
  }

  // ---- encode.json ---------------------------------------------------------------------

  static void runEncode(JsonNode c, boolean unsigned) {
    Layout layout = layoutOf(c.get("layout"));
    long timeMs = Long.parseLong(c.get("time_ms").asText());
    Map<String, Long> fields = fieldsOf(c.get("fields"));
    Executable call = () -> Snowflake.encode(layout, timeMs, fields);
    if (c.has("error")) {
      expectError(c.get("error").asText(), call, "encode");
      return;
    }
    if (unsigned) {
      expectError("InvalidArgument", call, "encode");
      return;
    }
    assertEquals(c.get("id").asText(), Long.toString(Snowflake.encode(layout, timeMs, fields)));
  }

  // ---- range.json ----------------------------------------------------------------------

  static void runRange(JsonNode c, boolean unsigned) {
    Layout layout = layoutOf(c.get("layout"));
    long t0 = Long.parseLong(c.get("t0_ms").asText());
    long t1 = Long.parseLong(c.get("t1_ms").asText());
    if (c.has("error")) {
      expectError(c.get("error").asText(), () -> Snowflake.range(layout, t0, t1), "range");
      return;
    }
    if (unsigned) {
      expectError("InvalidArgument", () -> Snowflake.range(layout, t0, t1), "range");
      return;
    }
    IdRange r = Snowflake.range(layout, t0, t1);
    assertEquals(c.get("min").asText(), Long.toString(r.min()), "min");
    assertEquals(c.get("max").asText(), Long.toString(r.max()), "max");
  }

  // ---- generate.json -------------------------------------------------------------------

  static Generator.Builder builderOf(JsonNode c) {
    // The guard off: a script's clock is its own (tests/vectors/README.md).
    Generator.Builder b = Generator.builder().layout(layoutOf(c.get("layout"))).guard(false);
    JsonNode o = c.path("options");
    nodesOf(b, o.path("node"));
    ifPresent(o, "rollback", v -> b.rollback(v.asText()));
    ifPresent(o, "max_wait_ms", v -> b.option("maxWait", v.asLong()));
    ifPresent(o, "max_drift_ms", v -> b.option("maxDrift", v.asLong()));
    ifPresent(o, "random_start", v -> b.randomStart(v.asBoolean()));
    return b;
  }

  /** Node values by field name: numbers, or text such as {@code "host"}. */
  static void nodesOf(Generator.Builder b, JsonNode node) {
    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().isNumber()) {
        b.node(e.getKey(), e.getValue().asLong());
      } else {
        b.node(e.getKey(), e.getValue().asText());
      }
    }
  }

  static void ifPresent(JsonNode o, String key, Consumer<JsonNode> f) {
    if (o.has(key)) {
      f.accept(o.get(key));
    }
  }

  /** A JVM cannot unset its variables: run-tests.sh starts Maven with none. */
  static void assertNoSnowflakeEnv() {
    for (String name : System.getenv().keySet()) {
      assertFalse(
          name.startsWith("SNOWFLAKE_"),
          "the vectors run with no SNOWFLAKE_* variable set; unset " + name);
    }
  }

  static void runGenerate(JsonNode c) {
    assertNoSnowflakeEnv();
    if (c.has("error")) {
      expectError(c.get("error").asText(), () -> builderOf(c).build().close(), "creation");
      return;
    }
    try (Generator g = builderOf(c).build()) {
      JsonNode steps = c.get("steps");
      for (int i = 0; i < steps.size(); i++) {
        runStep(g, steps.get(i), "step " + i);
      }
    }
  }

  static void runStep(Generator g, JsonNode step, String at) {
    long now = Long.parseLong(step.get("now_us").asText());
    JsonNode x = step.get("expect");
    String call = step.get("call").asText();
    if (call.equals("next")) {
      if (x.has("error")) {
        expectError(x.get("error").asText(), () -> g.nextIdAt(now), at);
      } else if (x.has("wait_us")) {
        Generator.Next n = g.nextIdAt(now);
        assertTrue(n.isWait(), at + ": expected a wait, got ID " + n.id());
        assertEquals(x.get("wait_us").asText(), Long.toString(n.waitUs()), at + ": wait_us");
      } else if (aboveLong(x.get("id").asText())) {
        expectError("TimeExhausted", () -> g.nextIdAt(now), at + " (ID above Long.MAX_VALUE)");
      } else {
        Generator.Next n = g.nextIdAt(now);
        assertFalse(n.isWait(), at + ": expected an ID, got a wait of " + n.waitUs() + " µs");
        assertEquals(x.get("id").asText(), Long.toString(n.id()), at + ": id");
      }
    } else if (call.equals("next_ids")) {
      int n = step.get("n").asInt();
      long[] dst = new long[n];
      Generator.Batch b = g.nextIdsAt(now, dst, 0, n);
      List<String> want = new ArrayList<>();
      x.path("ids").forEach(v -> want.add(v.asText()));
      int fit = 0;
      while (fit < want.size() && !aboveLong(want.get(fit))) {
        fit++;
      }
      List<String> got = new ArrayList<>();
      for (int i = 0; i < b.filled(); i++) {
        got.add(Long.toString(dst[i]));
      }
      assertEquals(want.subList(0, fit), got, at + ": ids");
      if (fit < want.size()) {
        assertNotNull(b.error(), at + ": expected TimeExhausted for IDs above Long.MAX_VALUE");
        assertEquals("TimeExhausted", b.error().statusName(), at);
      } else if (x.has("error")) {
        assertNotNull(b.error(), at + ": expected " + x.get("error").asText());
        assertEquals(x.get("error").asText(), b.error().statusName(), at + ": error");
      } else {
        assertNull(b.error(), at + ": unexpected error");
        if (x.has("wait_us")) {
          assertEquals(x.get("wait_us").asText(), Long.toString(b.waitUs()), at + ": wait_us");
        } else {
          assertEquals(n, b.filled(), at + ": a full batch");
        }
      }
    } else {
      fail(at + ": unknown call " + call);
    }
  }

  // ---- claims.json ---------------------------------------------------------------------

  /**
   * Two generators of this JVM, {@code first} then {@code second}, each with its layout, node
   * values and guard: the first starts; the second starts, or is refused with WorkerUnavailable
   * naming this process. Both are closed, the second first. The warning of a generator with the
   * guard off (said once per JVM and value, on the logger {@code io.snowflakec}) is caught here and
   * checked: a case may say none, when an earlier one said it for the same value.
   */
  static void runClaim(JsonNode c) throws Throwable {
    assertNoSnowflakeEnv();
    Set<String> unguarded = new HashSet<>();
    for (String side : List.of("first", "second")) {
      if (!c.get(side).get("guard").asBoolean()) {
        unguarded.add(nodeText(c.get(side).get("node")));
      }
    }
    List<LogRecord> records = LogCapture.logged(() -> runClaimSides(c));
    for (LogRecord r : records) {
      assertEquals(Level.WARNING, r.getLevel(), r.getMessage());
      String value = r.getMessage().replaceFirst("(?s)^node value (\\S+) .*$", "$1");
      assertTrue(
          unguarded.contains(value) && r.getMessage().contains("not guarded"),
          "only the warning of a value with the guard off " + unguarded + ": " + r.getMessage());
    }
  }

  /** Node values as the core names them: {@code datacenter=16,worker=5}. */
  static String nodeText(JsonNode node) {
    List<String> parts = new ArrayList<>();
    node.fields().forEachRemaining(e -> parts.add(e.getKey() + "=" + e.getValue().asText()));
    return String.join(",", parts);
  }

  static void runClaimSides(JsonNode c) {
    Generator first = claimSide(c.get("first"), "first");
    Generator second = null;
    try {
      if (c.get("second_starts").asBoolean()) {
        second = claimSide(c.get("second"), "second");
      } else {
        try {
          second = claimBuilder(c.get("second")).build();
        } catch (SnowflakeException e) {
          assertInstanceOf(WorkerUnavailableException.class, e, "second: " + e);
          assertEquals("WorkerUnavailable", e.statusName(), "second: " + e.getMessage());
          List<String> want = new ArrayList<>();
          c.get("message").forEach(m -> want.add(m.asText()));
          want.add("live process " + ProcessHandle.current().pid());
          for (String part : want) {
            assertTrue(
                e.getMessage().contains(part), "'" + part + "' is not in: " + e.getMessage());
          }
        }
        if (second != null) {
          fail(
              "second: expected WorkerUnavailable, got a generator (guard "
                  + guardOf(second)
                  + ")");
        }
      }
      // The same generator again took the value over: the first is closed and
      // says why; anything else leaves it open.
      if (!c.get("first_closed").asBoolean()) {
        first.nextId();
        return;
      }
      try {
        first.nextId();
        fail("first: expected InvalidArgument once taken over, got an ID");
      } catch (SnowflakeException e) {
        assertEquals("InvalidArgument", e.statusName(), "first: " + e.getMessage());
        for (JsonNode m : c.get("closed_message")) {
          assertTrue(
              e.getMessage().contains(m.asText()),
              "'" + m.asText() + "' is not in: " + e.getMessage());
        }
      }
    } finally {
      if (second != null) {
        second.close();
      }
      first.close();
    }
  }

  static Generator.Builder claimBuilder(JsonNode side) {
    Generator.Builder b =
        Generator.builder()
            .layout(layoutOf(side.get("layout")))
            .guard(side.get("guard").asBoolean());
    nodesOf(b, side.get("node"));
    return b;
  }

  static String guardOf(Generator g) {
    return g.stats().guard();
  }

  /** A generator that must start, its stats' guard "held: …" (guard true) or "off". */
  static Generator claimSide(JsonNode side, String at) {
    Generator g;
    try {
      g = claimBuilder(side).build();
    } catch (SnowflakeException e) {
      throw new AssertionError(
          at + ": expected it to start; got " + e.statusName() + ": " + e.getMessage(), e);
    }
    try {
      String guard = guardOf(g);
      if (side.get("guard").asBoolean()) {
        assertTrue(guard.startsWith("held: "), at + ": expected the guard held: ...; got " + guard);
      } else {
        assertEquals("off", guard, at + ": the guard");
      }
    } catch (Throwable t) {
      g.close();
      throw t;
    }
    return g;
  }
}
