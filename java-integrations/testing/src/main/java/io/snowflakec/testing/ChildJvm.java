package io.snowflakec.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Another JVM on the test's class path (and in its network namespace, where the generator's guard
 * lives), for tests of several processes writing to one database.
 */
public final class ChildJvm {
  private static final long TIMEOUT_S = 180;

  private final Process process;
  private final String name;

  private ChildJvm(Process process, String name) {
    this.process = process;
    this.name = name;
  }

  /**
   * Starts {@code mainClass} with {@code args}, without the SNOWFLAKE_* variables of the test.
   *
   * @param mainClass a class of the test's class path with a main method
   * @param args its arguments
   * @return the running child
   * @throws IOException when it cannot start
   */
  public static ChildJvm start(Class<?> mainClass, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    // Short-lived and several at once on small machines: quick start, one GC thread.
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass.getName());
    cmd.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
    builder.environment().keySet().removeIf(k -> k.startsWith("SNOWFLAKE_"));
    return new ChildJvm(builder.start(), mainClass.getSimpleName() + " " + String.join(" ", args));
  }

  /**
   * Waits for the child and checks that it succeeded.
   *
   * @return its output (standard output and error)
   * @throws Exception when it failed or took longer than 3 minutes
   */
  public String finish() throws Exception {
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("child JVM timed out: " + name);
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new AssertionError(
          "child JVM failed (" + process.exitValue() + "): " + name + "\n" + text);
    }
    return text;
  }

  /**
   * Marks a child as ready in a meeting folder and waits (up to 2 minutes) until {@code peers}
   * children are: they then surely hold their node values at the same time.
   *
   * @param folder the meeting folder, shared by the children
   * @param me this child's name in it
   * @param peers how many children meet
   * @throws Exception when the others do not come
   */
  public static void meet(Path folder, String me, int peers) throws Exception {
    Files.createDirectories(folder);
    Files.createFile(folder.resolve(me));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try (var files = Files.list(folder)) {
        if (files.count() >= peers) {
          return;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the other processes did not come to " + folder);
      }
      Thread.sleep(20);
    }
  }
}
