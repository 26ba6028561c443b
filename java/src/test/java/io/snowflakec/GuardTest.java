package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host-wide guard: two live generators with the same layout and node values never both run, in
 * one JVM or two; the guard never blocks a correct setup. Every test but one uses a guard folder of
 * its own, so that it never meets a generator of another suite run on the same machine.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GuardTest {
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

  private static Generator.Builder twitter(long datacenter, long worker) {
    return Generator.builder()
        .preset("twitter")
        .node("datacenter", datacenter)
        .node("worker", worker);
  }

  private static void assertRefusedBy(long pid, Path folder, String message) {
    assertTrue(message.contains("datacenter=1,worker=3"), "names the value: " + message);
    assertTrue(message.contains("live process " + pid + " "), "names the holder: " + message);
    assertTrue(message.contains(folder.toString()), "names the folder: " + message);
  }

  @Test
  void twoJvmsWithOneStaticValue(@TempDir Path tmp) throws Exception {
    String[] args = {"node.datacenter=1", "node.worker=3", "guardDir=" + tmp};
    try (Holder a = new Holder(args)) {
      assertTrue(a.held(), a.line);
      assertTrue(a.line.endsWith(" guard=held: " + tmp.resolve(lockName(a.line))), a.line);
      try (Holder b = new Holder(args)) {
        Matcher m = Pattern.compile("error pid=(\\d+) WorkerUnavailable: (.*)").matcher(b.line);
        assertTrue(m.matches(), b.line);
        assertRefusedBy(a.process.pid(), tmp, m.group(2));
        assertEquals(3, b.process.waitFor());
      }
      // This JVM meets the other one too.
      WorkerUnavailableException e =
          assertThrows(
              WorkerUnavailableException.class, () -> twitter(1, 3).guardDir(tmp).build().close());
      assertRefusedBy(a.process.pid(), tmp, e.getMessage());
      assertEquals("WorkerUnavailable", e.statusName());
    }
    // Once the first has closed its generator, the value is free.
    try (Holder c = new Holder(args)) {
      assertTrue(c.held(), c.line);
    }
  }

  /** The file name in "guard=held: DIR/NAME". */
  private static String lockName(String line) {
    return Path.of(line.substring(line.indexOf(" guard=held: ") + 13)).getFileName().toString();
  }

  @Test
  void withNoConfigurationTheDefaultFolderGuards() throws Exception {
    // The default folder is shared by the whole host: a value of this JVM's own.
    String worker = "" + ProcessHandle.current().pid() % 1024;
    String[] args = {
      "layout=time:41@1ms,worker:10,seq:12", "epoch=1704067200000", "node.worker=" + worker
    };
    try (Holder a = new Holder(args);
        Holder b = new Holder(args)) {
      assertTrue(a.held(), a.line);
      assertTrue(
          b.line.startsWith("error pid=" + b.process.pid() + " WorkerUnavailable: "), b.line);
      assertTrue(b.line.contains("worker=" + worker), b.line);
      assertTrue(b.line.contains("live process " + a.process.pid() + " "), b.line);
    }
  }

  @Test
  void inOneJvmTheSecondIsRefusedUntilTheFirstCloses(@TempDir Path tmp) {
    long pid = ProcessHandle.current().pid();
    Generator first = twitter(1, 3).guardDir(tmp).build();
    try {
      String guard = first.stats().guard();
      assertTrue(guard.startsWith("held: " + tmp + FileSystems.getDefault().getSeparator()), guard);
      assertTrue(Files.exists(Path.of(guard.substring("held: ".length()))), guard);
      WorkerUnavailableException e =
          assertThrows(
              WorkerUnavailableException.class, () -> twitter(1, 3).guardDir(tmp).build().close());
      assertRefusedBy(pid, tmp, e.getMessage());
      assertTrue(e.getMessage().contains("turn the guard off"), e.getMessage());
      // Another value, or the same value in another layout, is another generator's to take.
      try (Generator other = twitter(1, 4).guardDir(tmp).build();
          Generator discord =
              Generator.builder()
                  .preset("discord")
                  .node("worker", 1)
                  .node("process", 3)
                  .guardDir(tmp)
                  .build()) {
        assertTrue(other.stats().guard().startsWith("held: "), other.stats().guard());
        assertTrue(discord.stats().guard().startsWith("held: "), discord.stats().guard());
      }
    } finally {
      first.close();
    }
    try (Generator again = twitter(1, 3).guardDir(tmp).build()) {
      assertTrue(again.nextId() > 0);
    }
  }

  @Test
  void distinctValuesAllRunTogether(@TempDir Path tmp) {
    List<Generator> all = new ArrayList<>();
    try {
      for (int worker = 0; worker < 32; worker++) {
        all.add(twitter(2, worker).guardDir(tmp).build());
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

  @Test
  void guardFalseShares(@TempDir Path tmp) {
    try (Generator guarded = twitter(1, 3).guardDir(tmp).build();
        Generator unguarded = twitter(1, 3).guardDir(tmp).guard(false).build()) {
      assertEquals("off", unguarded.stats().guard());
      assertTrue(guarded.stats().guard().startsWith("held: "), guarded.stats().guard());
    }
    // An unguarded generator registers nothing: a guarded one still starts beside it.
    try (Generator unguarded = twitter(1, 3).guardDir(tmp).guard(false).build();
        Generator guarded = twitter(1, 3).guardDir(tmp).build()) {
      assertEquals("off", unguarded.stats().guard());
      assertTrue(guarded.stats().guard().startsWith("held: "), guarded.stats().guard());
    }
  }

  @Test
  void anUnusableFolderStartsUnguardedAndSaysWhy(@TempDir Path tmp) throws Exception {
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    try (Generator a = twitter(1, 3).guardDir(file).build();
        Generator b = twitter(1, 3).guardDir(file).build()) {
      assertTrue(a.stats().guard().startsWith("unavailable: "), a.stats().guard());
      assertTrue(a.stats().guard().contains(file.toString()), a.stats().guard());
      assertTrue(b.stats().guard().startsWith("unavailable: "), b.stats().guard());
      assertTrue(a.nextId() > 0);
    }
    assumeTrue(
        FileSystems.getDefault().supportedFileAttributeViews().contains("posix"),
        "POSIX permissions and links");
    Path open = Files.createDirectory(tmp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    try (Generator g = twitter(1, 3).guardDir(open).build()) {
      String guard = g.stats().guard();
      assertTrue(guard.startsWith("unavailable: "), guard);
      assertTrue(guard.contains("writable by other users"), guard);
    }
    Path real = Files.createDirectory(tmp.resolve("real"));
    Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
    try (Generator g = twitter(1, 3).guardDir(link).build()) {
      String guard = g.stats().guard();
      assertTrue(guard.startsWith("unavailable: "), guard);
      assertTrue(guard.contains("symbolic link"), guard);
    }
  }

  @Test
  void aFolderOfAnotherUserStartsUnguarded(@TempDir Path tmp) throws Exception {
    assumeTrue(
        FileSystems.getDefault().supportedFileAttributeViews().contains("unix"), "unix owners");
    Path foreign = Files.createDirectory(tmp.resolve("foreign"));
    Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwx------"));
    int uid = (Integer) Files.getAttribute(foreign, "unix:uid");
    try {
      Files.setAttribute(foreign, "unix:uid", uid + 1);
    } catch (FileSystemException e) {
      assumeTrue(false, "giving a folder away needs root: " + e.getMessage());
    }
    try (Generator g = twitter(1, 3).guardDir(foreign).build()) {
      String guard = g.stats().guard();
      assertTrue(guard.startsWith("unavailable: "), guard);
      assertTrue(guard.contains("belongs to uid " + (uid + 1)), guard);
    }
  }

  @Test
  void aKilledHoldersValueIsFreeAtOnce(@TempDir Path tmp) throws Exception {
    try (Holder a = new Holder("node.datacenter=1", "node.worker=3", "guardDir=" + tmp)) {
      assertTrue(a.held(), a.line);
      a.process.destroyForcibly().waitFor();
      // No retry: the kernel released the lock with the process.
      try (Generator g = twitter(1, 3).guardDir(tmp).build()) {
        assertTrue(g.stats().guard().startsWith("held: "), g.stats().guard());
      }
    }
  }

  @Test
  void aStateDirsLocksAreTheGuard(@TempDir Path tmp) {
    Path state = tmp.resolve("state");
    Path unused = tmp.resolve("unused");
    try (Generator g = twitter(1, 3).stateDir(state).guardDir(unused).build()) {
      String guard = g.stats().guard();
      assertTrue(guard.startsWith("held: " + state), guard);
      assertThrows(
          WorkerUnavailableException.class, () -> twitter(1, 3).stateDir(state).build().close());
    }
    assertTrue(Files.notExists(unused), "guardDir is not used beside a stateDir");
  }

  @Test
  void envValuesAndThePodRecipe(@TempDir Path tmp) throws Exception {
    // Several JVMs per pod: the pod's index in one field, a pool in the other.
    String[] args = {
      "layout=time:41@1ms,pod:5,proc:5,seq:12",
      "epoch=1704067200000",
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
      "layout=time:41@1ms,pod:5,proc:5,seq:12",
      "epoch=1704067200000",
      "node.pod=env:POD_INDEX",
      "node.proc=0",
      "guardDir=" + tmp.resolve("guard")
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
