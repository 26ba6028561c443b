package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How the loader names this platform's target and tells musl from glibc. */
class NativeLoaderTest {
  @ParameterizedTest
  @CsvSource({
    "Linux, amd64, false, x86_64-linux-gnu",
    "Linux, aarch64, false, aarch64-linux-gnu",
    "Linux, amd64, true, x86_64-linux-musl",
    "Linux, aarch64, true, aarch64-linux-musl",
    "Mac OS X, x86_64, false, x86_64-macos",
    "Mac OS X, aarch64, false, aarch64-macos",
    "Darwin, arm64, false, aarch64-macos",
    "Windows 11, amd64, false, x86_64-windows",
    "Windows Server 2022, amd64, false, x86_64-windows",
    "Linux, riscv64, false, riscv64-linux-gnu",
    "SunOS, sparcv9, false, sparcv9-sunos",
  })
  void targetOfAPlatform(String os, String arch, boolean musl, String target) {
    assertEquals(target, NativeLoader.target(os, arch, musl));
  }

  @Test
  void aForcedTargetIsANameNotAPath() {
    assertEquals("x86_64-linux-musl", NativeLoader.checkTarget("x86_64-linux-musl"));
    for (String bad : List.of("../../etc", "x86_64", "X86_64-Linux-GNU", "x86_64-linux-gnu/")) {
      UnsatisfiedLinkError e =
          assertThrows(UnsatisfiedLinkError.class, () -> NativeLoader.checkTarget(bad));
      assertTrue(e.getMessage().contains("is not a target name"), e.getMessage());
      assertTrue(e.getMessage().contains("aarch64-linux-musl"), e.getMessage());
    }
  }

  @Test
  void theTargetsAreTheOnesOfTheCrossFiles() throws IOException {
    Path cross = Paths.get("..", "cross");
    assumeTrue(Files.isDirectory(cross), "no cross/ beside java/");
    Set<String> files;
    try (Stream<Path> s = Files.list(cross)) {
      files =
          s.map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".ini"))
              .map(n -> n.substring(0, n.length() - 4))
              .collect(Collectors.toCollection(TreeSet::new));
    }
    assertFalse(files.isEmpty(), "no cross file in " + cross.toAbsolutePath());
    // In byte order, as scripts/targets lists them.
    assertEquals(List.copyOf(files), NativeLoader.targets());
  }

  @Test
  void libraryFilesAreWhatEachSystemMapsTheNameTo() {
    assertEquals(
        "io/snowflakec/native/x86_64-linux-musl/libsnowflake-c-jni-1.2.3.so",
        NativeLoader.resourceName("x86_64-linux-musl", "1.2.3"));
    assertEquals(
        "libsnowflake-c-jni-1.2.3.dylib", NativeLoader.libraryFile("aarch64-macos", "1.2.3"));
    assertEquals("snowflake-c-jni-1.2.3.dll", NativeLoader.libraryFile("x86_64-windows", "1.2.3"));
    String here = NativeLoader.target();
    assertEquals(
        System.mapLibraryName("snowflake-c-jni-1.2.3"), NativeLoader.libraryFile(here, "1.2.3"));
  }

  @Test
  void theClassPathCarriesThisPlatformsLibrary() {
    assertTrue(
        NativeLoader.availableTargets(NativeLoader.version()).contains(NativeLoader.target()),
        NativeLoader.target());
  }

  @Test
  void muslAndGlibcFromTheMappedLibraries() {
    List<String> alpine =
        List.of(
            "55d0c4a5e000-55d0c4a5f000 r--p 00000000 00:2e 1867  /usr/lib/jvm/java-17/bin/java",
            "7f51d8a00000-7f51d8a14000 r--p 00000000 00:2e 1290  /lib/ld-musl-x86_64.so.1");
    List<String> debian =
        List.of(
            "7f0e2c400000-7f0e2c426000 r--p 00000000 08:01 3934  /usr/lib/x86_64-linux-gnu/libc.so.6",
            "7f0e2c600000-7f0e2c601000 r--p 00000000 08:01 3930  /usr/lib/ld-linux-x86-64.so.2");
    List<String> centos7 =
        List.of("7f3c1a000000-7f3c1a1c4000 r-xp 00000000 fd:00 1049  /usr/lib64/libc-2.17.so");
    List<String> neither =
        List.of(
            "7ffd6a9f2000-7ffd6aa13000 rw-p 00000000 00:00 0  [stack]",
            "7f0e2c600000-7f0e2c601000 rw-p 00000000 00:00 0 ");
    assertEquals(Boolean.TRUE, NativeLoader.muslFromMaps(alpine));
    assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(debian));
    assertEquals(Boolean.FALSE, NativeLoader.muslFromMaps(centos7));
    assertNull(NativeLoader.muslFromMaps(neither));
    assertNull(NativeLoader.muslFromMaps(List.of()));
  }

  @Test
  void theTwoWaysOfTellingTheCLibraryAgreeHere() throws IOException {
    assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux"));
    Boolean fromMaps = NativeLoader.muslFromMaps(Files.readAllLines(Paths.get("/proc/self/maps")));
    assertNotNull(fromMaps, "/proc/self/maps shows neither musl nor glibc");
    String interpreter =
        NativeLoader.elfInterpreter(Paths.get(System.getProperty("java.home"), "bin", "java"));
    assertNotNull(interpreter, "the java launcher has no ELF interpreter");
    assertEquals(fromMaps, interpreter.contains("ld-musl-"), interpreter);
    assertEquals(fromMaps, NativeLoader.isMusl());
  }

  @Test
  void theInterpreterOfAnElfFile(@TempDir Path tmp) throws IOException {
    Path le64 = tmp.resolve("le64");
    Files.write(le64, elf(true, ByteOrder.LITTLE_ENDIAN, "/lib/ld-musl-aarch64.so.1"));
    assertEquals("/lib/ld-musl-aarch64.so.1", NativeLoader.elfInterpreter(le64));

    Path be32 = tmp.resolve("be32");
    Files.write(be32, elf(false, ByteOrder.BIG_ENDIAN, "/lib/ld.so.1"));
    assertEquals("/lib/ld.so.1", NativeLoader.elfInterpreter(be32));

    Path none = tmp.resolve("none");
    Files.write(none, elf(true, ByteOrder.LITTLE_ENDIAN, null));
    assertNull(NativeLoader.elfInterpreter(none));

    Path script = tmp.resolve("script");
    Files.writeString(script, "#!/bin/sh\nexec java \"$@\"\n".repeat(4));
    assertNull(NativeLoader.elfInterpreter(script));

    Path truncated = tmp.resolve("truncated");
    byte[] whole = elf(true, ByteOrder.LITTLE_ENDIAN, "/lib/ld-musl-x86_64.so.1");
    Files.write(truncated, java.util.Arrays.copyOf(whole, 80));
    assertThrows(IOException.class, () -> NativeLoader.elfInterpreter(truncated));
  }

  @Test
  void aTargetTheJarLacksIsNamedWithTheOnesItHas() throws Exception {
    Process p =
        MultiJvmTest.child(
            List.of("-D" + NativeLoader.TARGET_PROPERTY + "=riscv64-linux-gnu"),
            LoadProbe.class.getName());
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(3, p.waitFor(), out);
    assertTrue(out.contains("no JNI library for riscv64-linux-gnu"), out);
    assertTrue(out.contains("the jar has " + NativeLoader.target()), out);
    assertTrue(out.contains(NativeLoader.PATH_PROPERTY), out);
    assertFalse(out.contains("loaded"), out);
  }

  /**
   * A minimal ELF file: header, one PT_LOAD, then a PT_INTERP naming {@code interpreter} (none when
   * null).
   */
  private static byte[] elf(boolean is64, ByteOrder order, String interpreter) {
    int ehsize = is64 ? 64 : 52;
    int phentsize = is64 ? 56 : 32;
    int phnum = interpreter == null ? 1 : 2;
    int textOffset = ehsize + phnum * phentsize;
    byte[] text =
        interpreter == null ? new byte[0] : (interpreter + "\0").getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(textOffset + text.length).order(order);
    b.put(new byte[] {0x7f, 'E', 'L', 'F', (byte) (is64 ? 2 : 1)});
    b.put((byte) (order == ByteOrder.BIG_ENDIAN ? 2 : 1)).put((byte) 1);
    b.position(16);
    b.putShort((short) 3).putShort((short) (is64 ? 183 : 20)).putInt(1);
    if (is64) {
      b.putLong(0).putLong(ehsize).putLong(0);
    } else {
      b.putInt(0).putInt(ehsize).putInt(0);
    }
    b.putInt(0).putShort((short) ehsize).putShort((short) phentsize).putShort((short) phnum);
    b.position(ehsize);
    header(b, is64, phentsize, 1, 0, textOffset); // PT_LOAD
    if (interpreter != null) {
      header(b, is64, phentsize, 3, textOffset, text.length); // PT_INTERP
    }
    b.put(text);
    return b.array();
  }

  private static void header(ByteBuffer b, boolean is64, int size, int type, int off, int len) {
    int start = b.position();
    b.putInt(type);
    if (is64) {
      b.putInt(4).putLong(off).putLong(0).putLong(0).putLong(len).putLong(len);
    } else {
      b.putInt(off).putInt(0).putInt(0).putInt(len).putInt(len);
    }
    b.position(start + size);
  }
}
