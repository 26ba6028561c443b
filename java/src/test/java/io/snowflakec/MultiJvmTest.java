package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several JVMs on one host share a pool of workers through a state folder: each takes a different
 * worker with no configuration, and their IDs never collide. The children also extract the JNI
 * library into one fresh folder at the same time.
 */
class MultiJvmTest {
  static final int COUNT = 200_000;

  static Process child(List<String> jvmArgs, String mainClass, String... args) throws Exception {
    return child(Map.of(), jvmArgs, mainClass, args);
  }

  static Process child(
      Map<String, String> env, List<String> jvmArgs, String mainClass, String... args)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xcheck:jni");
    // As the parent: native access on Java 22+ (the FFM calls, and no warning of the JVM's).
    String parentArgs = System.getProperty("snowflakec.childJvmArgs", "");
    if (!parentArgs.isBlank()) {
      cmd.addAll(List.of(parentArgs.trim().split("\\s+")));
    }
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("SNOWFLAKE_"));
    pb.environment().putAll(env);
    return pb.start();
  }

  static String finish(Process p) throws Exception {
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), "child JVM failed:\n" + out);
    return out;
  }

  @Test
  void twoJvmsOnOnePoolNeverCollide(@TempDir Path tmp) throws Exception {
    Path state = tmp.resolve("state");
    Path natives = tmp.resolve("natives");
    List<String> jvmArgs = List.of("-D" + NativeLoader.TMPDIR_PROPERTY + "=" + natives);
    Process a =
        child(
            jvmArgs,
            PoolChild.class.getName(),
            state.toString(),
            "" + RunEpoch.MS,
            "" + COUNT,
            tmp.resolve("a.bin").toString(),
            tmp.resolve("meet").toString(),
            "2");
    Process b =
        child(
            jvmArgs,
            PoolChild.class.getName(),
            state.toString(),
            "" + RunEpoch.MS,
            "" + COUNT,
            tmp.resolve("b.bin").toString(),
            tmp.resolve("meet").toString(),
            "2");
    String outA = finish(a);
    String outB = finish(b);
    String workerA = outA.lines().filter(l -> l.startsWith("worker=")).findFirst().orElseThrow();
    String workerB = outB.lines().filter(l -> l.startsWith("worker=")).findFirst().orElseThrow();
    assertTrue(workerA.endsWith("source=pool"), workerA);
    assertNotEquals(workerA, workerB, "two live JVMs took different workers");

    long[] all = new long[2 * COUNT];
    int n = 0;
    for (String f : List.of("a.bin", "b.bin")) {
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(Files.newInputStream(tmp.resolve(f))))) {
        for (int i = 0; i < COUNT; i++) {
          all[n++] = in.readLong();
        }
      }
    }
    ConcurrencyTest.assertUniqueAndPositive(all);
    // Both children extracted into one folder: one library file, no parts left behind.
    try (var files = Files.walk(natives)) {
      List<String> libs = new ArrayList<>();
      files
          .filter(Files::isRegularFile)
          .map(p -> p.getFileName().toString())
          .filter(s -> !s.equals(".lock"))
          .forEach(libs::add);
      assertEquals(1, libs.size(), "extracted files: " + libs);
      assertTrue(libs.get(0).startsWith("libsnowflake-c-jni-"), libs.get(0));
    }
  }

  @Test
  void aMissingExplicitLibraryIsNamed(@TempDir Path tmp) throws Exception {
    Path missing = tmp.resolve("nowhere").resolve("libsnowflake-c-jni.so");
    Process p =
        child(
            List.of("-D" + NativeLoader.PATH_PROPERTY + "=" + missing), LoadProbe.class.getName());
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(3, p.waitFor(), out);
    assertTrue(out.contains(missing.toString()), out);
    assertTrue(out.contains(NativeLoader.PATH_PROPERTY), out);
  }

  @Test
  void anExplicitLibraryIsLoaded(@TempDir Path tmp) throws Exception {
    // The library extracted by this JVM, named explicitly for another one.
    String resource = NativeLoader.resourceName(NativeLoader.version());
    Path lib = tmp.resolve("lib.so");
    try (var in = NativeLoader.class.getClassLoader().getResourceAsStream(resource)) {
      Files.copy(in, lib);
    }
    Process p =
        child(List.of("-D" + NativeLoader.PATH_PROPERTY + "=" + lib), LoadProbe.class.getName());
    String out = finish(p);
    assertTrue(out.contains("loaded " + Snowflake.version()), out);
  }

  @Test
  void nodeValuesFromTheEnvironment() throws Exception {
    String out =
        finish(child(Map.of("SNOWFLAKE_WORKER", "77"), List.of(), EnvProbe.class.getName()));
    assertTrue(out.contains("worker=77 source=env decoded=77"), out);
    Process p = child(Map.of(), List.of(), EnvProbe.class.getName());
    String missing = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(3, p.waitFor(), missing);
    assertTrue(missing.startsWith("InvalidArgument: "), missing);
    assertTrue(missing.contains("SNOWFLAKE_WORKER"), "says how to set it: " + missing);
  }
}
