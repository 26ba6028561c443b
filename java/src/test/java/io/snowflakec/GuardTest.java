package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard: two live generators that could issue the same IDs never both run — in one JVM or two,
 * whatever their field names or state folders — and the guard never blocks a correct setup. Every
 * layout here is at the run's own epoch ({@link RunEpoch}), so that no generator of another program
 * of the machine shares its claims.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GuardTest {
  static final String TWITTER = "time:41@1ms,datacenter:5,worker:5,seq:12";

  /** A generator held in a JVM of its own (see {@link GuardHolder}). */
  static final class Holder implements AutoCloseable {
    final Process process;
    final String line;

    Holder(Map<String, String> env, String... args) throws Exception {
      process = MultiJvmTest.child(env, List.of(), GuardHolder.class.getName(), args);
      line = firstLine(process);
    }

    Holder(String... args) throws Exception {
      this(Map.of(), args);
    }

    boolean held() {
      return line.startsWith("held pid=" + process.pid() + " ");
    }

    /** The claim's name in "guard=held: NAME". */
    String claim() {
      assertTrue(held(), line);
      return line.substring(line.indexOf(" guard=held: ") + " guard=held: ".length());
    }

    /** Closes its standard input: it closes its generator and exits. */
    @Override
    public void close() throws IOException {
      process.getOutputStream().close();
      try {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }

    /** The holder's report; the JVM's own warnings, if any, come before it. */
    private static String firstLine(Process p) throws IOException {
      BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      StringBuilder seen = new StringBuilder();
      for (String l; (l = r.readLine()) != null; ) {
        if (l.startsWith("held ") || l.startsWith("error ")) {
          return l;
        }
        seen.append(l).append('\n');
      }
      throw new AssertionError("the holder JVM ended without a report:\n" + seen);
    }
  }

  /** The twitter preset's fields at the run's epoch. */
  private static Generator.Builder twitter(long datacenter, long worker) {
    return Generator.builder()
        .layout(RunEpoch.layout(TWITTER))
        .node("datacenter", datacenter)
        .node("worker", worker);
  }

  /** The holder's arguments for {@link #twitter(long, long)}, then {@code more}. */
  private static String[] twitterArgs(long datacenter, long worker, String... more) {
    List<String> args = new ArrayList<>();
    args.add("layout=" + TWITTER);
    args.add("epoch=" + RunEpoch.MS);
    args.add("node.datacenter=" + datacenter);
    args.add("node.worker=" + worker);
    args.addAll(List.of(more));
    return args.toArray(new String[0]);
  }

  private static String guardOf(Generator g) {
    return g.stats().guard();
  }

  /** The stats' guard of a guarded generator: "held: " and the claim's name. */
  private static String claimOf(Generator g) {
    String guard = guardOf(g);
    assertTrue(guard.startsWith("held: "), guard);
    String claim = guard.substring("held: ".length());
    if (System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux")) {
      assertTrue(
          claim.matches("@snowflake-c/claim/[0-9a-f]{16}[.][0-9a-f]{16}"),
          "an abstract name: " + claim);
    }
    return claim;
  }

  private static void assertRefusedBy(long pid, String value, String claim, String message) {
    // A holder in this JVM is told apart: close it first.
    boolean mine = pid == ProcessHandle.current().pid();
    String by =
        mine
            ? ", this process: another of its generators is still open (host-wide claim "
            : " (host-wide claim ";
    assertTrue(
        message.contains("node value " + value + " is held by live process " + pid + by),
        "names the value and the holder: " + message);
    assertTrue(message.contains("(host-wide claim " + claim + ")"), "names the claim: " + message);
    assertTrue(
        message.contains(mine ? "close that one first" : "turn the guard off"),
        "says what to do: " + message);
  }

  @Test
  void oneValueInTwoJvms() throws Exception {
    String[] args = twitterArgs(1, 3);
    try (Holder a = new Holder(args)) {
      String claim = a.claim();
      try (Holder b = new Holder(args)) {
        Matcher m = Pattern.compile("error pid=(\\d+) WorkerUnavailable: (.*)").matcher(b.line);
        assertTrue(m.matches(), b.line);
        assertRefusedBy(a.process.pid(), "datacenter=1,worker=3", claim, m.group(2));
        assertEquals(3, b.process.waitFor());
      }
      // This JVM meets the other one too.
      WorkerUnavailableException e =
          assertThrows(WorkerUnavailableException.class, () -> twitter(1, 3).build().close());
      assertRefusedBy(a.process.pid(), "datacenter=1,worker=3", claim, e.getMessage());
      assertEquals("WorkerUnavailable", e.statusName());
    }
    // Once the first has closed its generator, the value is free.
    try (Holder c = new Holder(args)) {
      assertTrue(c.held(), c.line);
    }
  }

  @Test
  void inOneJvmTheSameGeneratorAgainTakesTheValueOver() {
    long pid = ProcessHandle.current().pid();
    Generator first = twitter(1, 3).build();
    Generator again = null;
    try {
      String claim = claimOf(first);
      long before = first.nextId();
      // A JShell line or a hot reload run twice: the newer one starts after the older one,
      // which is closed and says why.
      assertFalse(first.isClosed());
      again = twitter(1, 3).build();
      assertTrue(first.isClosed());
      assertFalse(again.isClosed());
      assertEquals(claim, claimOf(again));
      assertTrue(again.nextId() > before);
      InvalidArgumentException closed = assertThrows(InvalidArgumentException.class, first::nextId);
      assertEquals(
          "the generator is closed: a newer generator of this process took node value"
              + " datacenter=1,worker=3 (a cell or a reload run again); use that one",
          closed.getMessage());
      // Another value is another generator's to take; the same value in another epoch issues
      // the same integers a millisecond apart: refused, not taken over.
      try (Generator other = twitter(1, 4).build()) {
        assertNotEquals(claim, claimOf(other));
      }
      WorkerUnavailableException e =
          assertThrows(
              WorkerUnavailableException.class,
              () ->
                  Generator.builder()
                      .layout(Layout.parse(TWITTER, RunEpoch.MS + 1))
                      .node("datacenter", 1)
                      .node("worker", 3)
                      .build()
                      .close());
      assertRefusedBy(pid, "datacenter=1,worker=3", claim, e.getMessage());
      assertTrue(again.nextId() > 0);
    } finally {
      first.close();
      if (again != null) {
        again.close();
      }
    }
  }

  @Test
  void fieldNamesDoNotSplitTheClaim() throws Exception {
    // datacenter 1, worker 3 in 5 + 5 bits is worker 35 in 10 bits: the same IDs.
    String flat = "time:41@1ms,worker:10,seq:12";
    String claim;
    try (Generator g = twitter(1, 3).build()) {
      claim = claimOf(g);
      WorkerUnavailableException e =
          assertThrows(
              WorkerUnavailableException.class,
              () -> Generator.builder().layout(RunEpoch.layout(flat)).node("worker", 35).build());
      assertRefusedBy(ProcessHandle.current().pid(), "worker=35", claim, e.getMessage());
    }
    // And across JVMs, either way round.
    try (Holder a = new Holder("layout=" + flat, "epoch=" + RunEpoch.MS, "node.worker=35")) {
      assertEquals(claim, a.claim(), "one claim for one ID space and node bits");
      WorkerUnavailableException e =
          assertThrows(WorkerUnavailableException.class, () -> twitter(1, 3).build().close());
      assertRefusedBy(a.process.pid(), "datacenter=1,worker=3", claim, e.getMessage());
    }
  }

  @Test
  void aStateDirDoesNotSplitTheClaim(@TempDir Path tmp) throws Exception {
    Path one = tmp.resolve("one");
    Path two = tmp.resolve("two");
    // In this JVM the same layout and value with a state_dir takes the claim over.
    try (Generator guardOnly = twitter(1, 3).build();
        Generator stated = twitter(1, 3).stateDir(one).build()) {
      assertEquals(claimOf(guardOnly), claimOf(stated));
      assertThrows(InvalidArgumentException.class, guardOnly::nextId);
      assertTrue(stated.nextId() > 0);
    }
    try (Holder a = new Holder(twitterArgs(1, 3, "stateDir=" + one))) {
      String claim = a.claim();
      // Another folder, or none: the same claim.
      WorkerUnavailableException e =
          assertThrows(
              WorkerUnavailableException.class, () -> twitter(1, 3).stateDir(two).build().close());
      assertRefusedBy(a.process.pid(), "datacenter=1,worker=3", claim, e.getMessage());
      e = assertThrows(WorkerUnavailableException.class, () -> twitter(1, 3).build().close());
      assertRefusedBy(a.process.pid(), "datacenter=1,worker=3", claim, e.getMessage());
    }
    // A pool passes over a value that a guard-only generator holds.
    Layout tiny = RunEpoch.layout("time:41@1ms,worker:1,seq:12");
    try (Generator guardOnly = Generator.builder().layout(tiny).node("worker", 0).build();
        Generator pooled =
            Generator.builder().layout(tiny).node("worker", "auto").stateDir(two).build()) {
      assertEquals(1L, pooled.stats().nodes().get("worker"));
      assertEquals("pool", pooled.stats().nodeSources().get("worker"));
      assertNotEquals(claimOf(guardOnly), claimOf(pooled));
      assertThrows(
          WorkerUnavailableException.class,
          () -> Generator.builder().layout(tiny).node("worker", 1).build().close());
    }
  }

  @Test
  void distinctValuesAllRunTogether() {
    List<Generator> all = new ArrayList<>();
    try {
      for (int worker = 0; worker < 32; worker++) {
        all.add(twitter(2, worker).build());
      }
      Set<Long> ids = new HashSet<>();
      for (Generator g : all) {
        for (long id : g.nextIds(100)) {
          assertTrue(ids.add(id), "duplicate " + id);
        }
      }
    } finally {
      all.forEach(Generator::close);
    }
  }

  static List<String> kindsOf(Generator g) {
    return g.warnings().stream().map(Generator.Warning::kind).toList();
  }

  @Test
  void guardFalseIsOffAndSaysSo() throws Throwable {
    // A field name of this test's own: the warning names the value, and each is said once per JVM.
    Layout layout = RunEpoch.layout("time:41@1ms,unguarded:10,seq:12");
    List<LogRecord> records =
        LogCapture.logged(
            () -> {
              try (Generator g =
                      Generator.builder().layout(layout).node("unguarded", 5).guard(false).build();
                  Generator again =
                      Generator.builder().layout(layout).node("unguarded", 5).guard(false).build();
                  Generator guarded =
                      Generator.builder().layout(layout).node("unguarded", 5).build();
                  Generator other =
                      Generator.builder()
                          .layout(layout)
                          .node("unguarded", 6)
                          .guard(false)
                          .build()) {
                assertEquals("off", guardOf(g));
                assertEquals("off", guardOf(again));
                assertEquals("off", guardOf(other));
                // Logged once, kept by each generator it concerns.
                assertEquals(g.warnings(), again.warnings());
                assertEquals(List.of("Unguarded"), kindsOf(again));
                assertTrue(again.warnings().get(0).message().startsWith("node value unguarded=5 "));
                assertEquals(List.of(), guarded.warnings());
                // Off registers nothing: a guarded generator of the value still starts beside it.
                claimOf(guarded);
              }
              try (Generator guarded =
                  Generator.builder().layout(layout).node("unguarded", 7).build()) {
                claimOf(guarded);
              }
            });
    assertEquals(2, records.size(), "once per value, none for a guarded one: " + records);
    for (int i = 0; i < 2; i++) {
      LogRecord r = records.get(i);
      assertEquals(Level.WARNING, r.getLevel());
      assertEquals(Generator.LOGGER, r.getLoggerName());
      assertTrue(
          r.getMessage().startsWith("node value unguarded=" + (5 + i) + " "), r.getMessage());
      assertTrue(r.getMessage().contains("not guarded"), r.getMessage());
    }
  }

  @Test
  void aKilledHoldersValueIsFreeAtOnce() throws Exception {
    try (Holder a = new Holder(twitterArgs(1, 3))) {
      String claim = a.claim();
      a.process.destroyForcibly().waitFor();
      // No retry: the kernel let go of the claim with the process.
      try (Generator g = twitter(1, 3).build()) {
        assertEquals(claim, claimOf(g));
      }
    }
  }

  @Test
  void envValuesAndThePodRecipe(@TempDir Path tmp) throws Exception {
    String spec = "time:41@1ms,pod:5,proc:5,seq:12";
    // Several JVMs per pod: the pod's index in one field, a pool in the other.
    String[] args = {
      "layout=" + spec,
      "epoch=" + RunEpoch.MS,
      "node.pod=env:POD_INDEX",
      "node.proc=auto",
      "stateDir=" + tmp.resolve("state")
    };
    Map<String, String> env = Map.of("POD_INDEX", "7");
    try (Holder a = new Holder(env, args);
        Holder b = new Holder(env, args)) {
      assertTrue(a.held(), a.line);
      assertTrue(b.held(), b.line);
      assertTrue(a.line.contains(" nodes={pod=7, proc="), a.line);
      assertTrue(b.line.contains(" nodes={pod=7, proc="), b.line);
      assertNotEquals(procOf(a.line), procOf(b.line), "two processes of one pod");
    }
    // The pod's value alone, in a second process, is refused.
    String[] alone = {
      "layout=" + spec, "epoch=" + RunEpoch.MS, "node.pod=env:POD_INDEX", "node.proc=0"
    };
    try (Holder a = new Holder(env, alone);
        Holder b = new Holder(env, alone)) {
      assertTrue(a.held(), a.line);
      assertTrue(b.line.contains(" WorkerUnavailable: node value pod=7,proc=0 "), b.line);
    }
    InvalidArgumentException e =
        assertThrows(
            InvalidArgumentException.class,
            () ->
                Generator.builder().node("worker", "env:SNOWFLAKE_C_TEST_UNSET_VARIABLE").build());
    assertTrue(e.getMessage().contains("SNOWFLAKE_C_TEST_UNSET_VARIABLE"), e.getMessage());
  }

  private static String procOf(String line) {
    Matcher m = Pattern.compile(" nodes=\\{pod=7, proc=(\\d+)\\} ").matcher(line);
    if (!m.find()) {
      fail("no proc value: " + line);
    }
    return m.group(1);
  }
}
