package io.snowflakec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Loads the JNI library that travels inside the jar.
 *
 * <p>The jar holds one library per target, as the resource {@code
 * io/snowflakec/native/<target>/<file>}: the targets are named as everywhere in snowflake-c, {@code
 * <arch>-<os>} ({@code x86_64-linux-gnu}, {@code aarch64-linux-musl}, {@code aarch64-macos}, {@code
 * x86_64-windows}…), the resource {@code io/snowflakec/native/targets} lists them all (the build
 * writes it from the repository's cross files), and the file is {@code
 * libsnowflake-c-jni-<version>.so}, {@code .dylib} on macOS, {@code snowflake-c-jni-<version>.dll}
 * on Windows. The target comes from {@code os.name} and {@code os.arch}; on Linux, whether the JVM
 * runs on musl (Alpine) or glibc is read from the libraries mapped into this process ({@code
 * /proc/self/maps}), else from the program interpreter of {@code java.home/bin/java}. The system
 * property {@value #TARGET_PROPERTY} names the target instead.
 *
 * <p>The library is extracted to a private folder of the temporary directory (the system property
 * {@value #TMPDIR_PROPERTY}, else {@code java.io.tmpdir}) under a name that carries the version and
 * a checksum of its bytes, so that several JVMs sharing that folder agree on one file: extraction
 * happens under a lock file, into a temporary file moved into place atomically, and an existing
 * file is used only when its bytes match. Files left by other versions are removed once they have
 * not been used for a day.
 *
 * <p>The system property {@value #PATH_PROPERTY} names a library file to load instead, for
 * platforms the jar does not carry.
 */
final class NativeLoader {
  /** System property: an explicit path of the JNI library to load. */
  static final String PATH_PROPERTY = "io.snowflakec.native.path";

  /** System property: the folder to extract the library into. */
  static final String TMPDIR_PROPERTY = "io.snowflakec.native.tmpdir";

  /** System property: the target whose library to load, instead of the detected one. */
  static final String TARGET_PROPERTY = "io.snowflakec.native.target";

  private static final String NATIVE_DIR = "io/snowflakec/native/";

  /** The list of every target a release jar carries, one a line, written by the build. */
  static final String TARGETS_RESOURCE = NATIVE_DIR + "targets";

  private static final String LIB_PREFIX = "snowflake-c-jni-";
  private static final Duration STALE_LIBRARY = Duration.ofDays(1);
  private static final Duration STALE_PART = Duration.ofMinutes(10);

  private static boolean loaded;

  private NativeLoader() {}

  static synchronized void load() {
    if (loaded) {
      return;
    }
    String version = version();
    String explicit = System.getProperty(PATH_PROPERTY);
    if (explicit != null && !explicit.isEmpty()) {
      Path path = Paths.get(explicit).toAbsolutePath();
      if (!Files.isRegularFile(path)) {
        throw new UnsatisfiedLinkError(
            "snowflake-c: the JNI library named by -D"
                + PATH_PROPERTY
                + " does not exist: "
                + path);
      }
      loadFile(path, "-D" + PATH_PROPERTY + "=" + explicit);
    } else {
      String target = target();
      String resource = resourceName(target, version);
      byte[] bytes = readResource(resource, target, version);
      Path file = extract(bytes, version, resource);
      loadFile(file, "resource " + resource + " extracted to " + file);
    }
    checkVersion(version);
    loaded = true;
  }

  /** The resource of this JVM's target: {@code io/snowflakec/native/x86_64-linux-gnu/lib…so}. */
  static String resourceName(String version) {
    return resourceName(target(), version);
  }

  static String resourceName(String target, String version) {
    return NATIVE_DIR + target + "/" + libraryFile(target, version);
  }

  /** The library's file name as the target's {@code System.mapLibraryName} gives it. */
  static String libraryFile(String target, String version) {
    String name = LIB_PREFIX + version;
    if (target.endsWith("-windows")) {
      return name + ".dll";
    }
    return "lib" + name + (target.endsWith("-macos") ? ".dylib" : ".so");
  }

  /** This JVM's target: the system property {@value #TARGET_PROPERTY}, else detected. */
  static String target() {
    String forced = System.getProperty(TARGET_PROPERTY);
    if (forced != null && !forced.isEmpty()) {
      return checkTarget(forced);
    }
    String os = System.getProperty("os.name", "");
    boolean musl = os.toLowerCase(Locale.ROOT).startsWith("linux") && isMusl();
    return target(os, System.getProperty("os.arch", ""), musl);
  }

  /** A target named by the user: a name such as {@code x86_64-linux-musl}, not a path. */
  static String checkTarget(String name) {
    if (!name.matches("[a-z0-9_]+(-[a-z0-9_]+)+")) {
      throw new UnsatisfiedLinkError(
          "snowflake-c: -D"
              + TARGET_PROPERTY
              + "="
              + name
              + " is not a target name; "
              + describeTargets());
    }
    return name;
  }

  /**
   * Every target a release jar carries, as the resource {@value #TARGETS_RESOURCE} lists them (the
   * names of the repository's cross files); empty when the class path lacks that list.
   */
  static List<String> targets() {
    try (InputStream in = resource(TARGETS_RESOURCE)) {
      if (in == null) {
        return List.of();
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .map(String::strip)
          .filter(line -> !line.isEmpty())
          .toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static String describeTargets() {
    List<String> all = targets();
    return all.isEmpty()
        ? "the jar does not list its targets (no resource " + TARGETS_RESOURCE + ")"
        : "the targets are " + String.join(", ", all);
  }

  /**
   * The target of an {@code os.name}, an {@code os.arch} and, on Linux, the C library. A platform
   * outside the targets still gets a name ({@code sparcv9-sunos}), for the error message.
   */
  static String target(String osName, String osArch, boolean musl) {
    String os = osName.toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      os = musl ? "linux-musl" : "linux-gnu";
    } else if (os.startsWith("mac") || os.startsWith("darwin")) {
      os = "macos";
    } else if (os.startsWith("windows")) {
      os = "windows";
    } else {
      os = os.replaceAll("[^a-z0-9]", "");
    }
    String arch = osArch.toLowerCase(Locale.ROOT);
    switch (arch) {
      case "amd64":
      case "x86_64":
      case "x64":
        arch = "x86_64";
        break;
      case "aarch64":
      case "arm64":
        arch = "aarch64";
        break;
      default:
        arch = arch.replaceAll("[^a-z0-9_]", "");
    }
    return arch + "-" + os;
  }

  /**
   * Whether this Linux JVM runs on musl: the libraries mapped into the process tell, else the
   * program interpreter of the {@code java} launcher; glibc when neither can be read.
   */
  static boolean isMusl() {
    try {
      Boolean fromMaps = muslFromMaps(Files.readAllLines(Paths.get("/proc/self/maps")));
      if (fromMaps != null) {
        return fromMaps;
      }
    } catch (IOException | RuntimeException e) {
      // No /proc (some sandboxes): the launcher's interpreter below.
    }
    try {
      Path java = Paths.get(System.getProperty("java.home", ""), "bin", "java");
      String interpreter = elfInterpreter(java);
      return interpreter != null && isMuslFile(interpreter);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * musl or glibc from the lines of {@code /proc/<pid>/maps}: {@code true} when musl's loader
   * ({@code ld-musl-<arch>.so.1}) is mapped, {@code false} when glibc's C library is, {@code null}
   * when neither shows.
   */
  static Boolean muslFromMaps(List<String> lines) {
    boolean glibc = false;
    for (String line : lines) {
      int slash = line.indexOf('/');
      if (slash < 0) {
        continue;
      }
      String path = line.substring(slash);
      if (isMuslFile(path)) {
        return true;
      }
      String name = path.substring(path.lastIndexOf('/') + 1);
      glibc |= name.startsWith("libc.so.6") || name.startsWith("libc-2.");
    }
    return glibc ? Boolean.FALSE : null;
  }

  private static boolean isMuslFile(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return name.startsWith("ld-musl-") || name.startsWith("libc.musl-");
  }

  /** The program interpreter (PT_INTERP) of an ELF file, or null when it names none. */
  static String elfInterpreter(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer head = read(ch, 0, 64);
      if (head.getInt(0) != 0x7f454c46) { // "\x7fELF"
        return null;
      }
      boolean is64 = head.get(4) == 2;
      head.order(head.get(5) == 2 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
      long phoff = is64 ? head.getLong(0x20) : Integer.toUnsignedLong(head.getInt(0x1c));
      int phentsize = Short.toUnsignedInt(head.getShort(is64 ? 0x36 : 0x2a));
      int phnum = Short.toUnsignedInt(head.getShort(is64 ? 0x38 : 0x2c));
      if (phentsize < (is64 ? 0x38 : 0x20)) {
        return null;
      }
      for (int i = 0; i < phnum; i++) {
        ByteBuffer ph = read(ch, phoff + (long) i * phentsize, phentsize).order(head.order());
        if (ph.getInt(0) != 3) { // PT_INTERP
          continue;
        }
        long offset = is64 ? ph.getLong(0x08) : Integer.toUnsignedLong(ph.getInt(0x04));
        long size = is64 ? ph.getLong(0x20) : Integer.toUnsignedLong(ph.getInt(0x10));
        if (size <= 0 || size > 4096) {
          return null;
        }
        byte[] text = new byte[(int) size];
        read(ch, offset, (int) size).get(text);
        int end = 0;
        while (end < text.length && text[end] != 0) {
          end++;
        }
        return new String(text, 0, end, StandardCharsets.ISO_8859_1);
      }
      return null;
    }
  }

  private static ByteBuffer read(FileChannel ch, long position, int size) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(size);
    while (b.hasRemaining()) {
      if (ch.read(b, position + b.position()) < 0) {
        throw new IOException("truncated ELF file");
      }
    }
    return b.flip();
  }

  /** The targets whose library this jar (or class path) carries. */
  static List<String> availableTargets(String version) {
    List<String> found = new ArrayList<>();
    for (String t : targets()) {
      if (NativeLoader.class.getResource("/" + resourceName(t, version)) != null) {
        found.add(t);
      }
    }
    return found;
  }

  static String version() {
    Properties p = new Properties();
    try (InputStream in = NativeLoader.class.getResourceAsStream("snowflake-c.properties")) {
      if (in == null) {
        throw new UnsatisfiedLinkError(
            "snowflake-c: io/snowflakec/snowflake-c.properties is missing from the jar");
      }
      p.load(in);
    } catch (IOException e) {
      throw linkError("cannot read io/snowflakec/snowflake-c.properties", e);
    }
    return p.getProperty("version");
  }

  private static byte[] readResource(String resource, String target, String version) {
    try (InputStream in = resource(resource)) {
      if (in == null) {
        List<String> have = availableTargets(version);
        throw new UnsatisfiedLinkError(
            "snowflake-c: this jar carries no JNI library for "
                + target
                + " (os.name="
                + System.getProperty("os.name")
                + ", os.arch="
                + System.getProperty("os.arch")
                + "): looked for the resource "
                + resource
                + "; the jar has "
                + (have.isEmpty() ? "none" : String.join(", ", have))
                + ". On another C library or platform, build the library (java/build.sh) and"
                + " name it with -D"
                + PATH_PROPERTY
                + "=FILE, or choose one of the jar's with -D"
                + TARGET_PROPERTY
                + "=TARGET.");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw linkError("cannot read the resource " + resource, e);
    }
  }

  /**
   * A resource of the jar by its full name, or null. Read through this class: in the module {@code
   * io.snowflakec} (on the module path, or in a {@code jlink} image) that finds the module's own
   * resources, whatever their folder; on the class path, the class loader finds them.
   */
  static InputStream resource(String name) {
    return NativeLoader.class.getResourceAsStream("/" + name);
  }

  private static Path extract(byte[] bytes, String version, String resource) {
    String sha = sha256(bytes);
    String fileName = System.mapLibraryName(LIB_PREFIX + version + "-" + sha.substring(0, 16));
    Path dir = privateDir();
    Path target = dir.resolve(fileName);
    try {
      withLock(
          dir,
          () -> {
            if (!Files.isRegularFile(target) || !sha.equals(sha256(Files.readAllBytes(target)))) {
              Path part = Files.createTempFile(dir, fileName + ".", ".part");
              try {
                Files.write(part, bytes);
                Files.move(
                    part,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
              } finally {
                Files.deleteIfExists(part);
              }
            } else {
              Files.setLastModifiedTime(target, FileTime.from(Instant.now()));
            }
            removeStale(dir, fileName);
          });
    } catch (IOException e) {
      throw linkError("cannot extract the resource " + resource + " to " + target, e);
    }
    return target;
  }

  private interface IoAction {
    void run() throws IOException;
  }

  /** Runs the action holding the folder's lock file (shared by every JVM using it). */
  private static void withLock(Path dir, IoAction action) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      for (; ; ) {
        // Another class loader of this JVM may hold it: the JVM refuses a second lock.
        FileLock lock;
        try {
          lock = ch.lock();
        } catch (OverlappingFileLockException e) {
          try {
            Thread.sleep(5);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + dir.resolve(".lock"), ie);
          }
          continue;
        }
        try {
          action.run();
          return;
        } finally {
          lock.release();
        }
      }
    }
  }

  private static void removeStale(Path dir, String current) {
    Instant now = Instant.now();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + LIB_PREFIX + "*")) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (name.equals(current)) {
          continue;
        }
        try {
          Instant modified = Files.getLastModifiedTime(f).toInstant();
          Duration age = Duration.between(modified, now);
          if (age.compareTo(name.endsWith(".part") ? STALE_PART : STALE_LIBRARY) > 0) {
            Files.deleteIfExists(f);
          }
        } catch (IOException e) {
          // In use (Windows) or removed by another JVM meanwhile: try again next time.
        }
      }
    } catch (IOException e) {
      // Cleaning up is a courtesy; loading does not depend on it.
    }
  }

  /**
   * A folder only this user can write to: a shared temporary directory must not let another user
   * swap the library between its check and its loading.
   */
  private static Path privateDir() {
    String base = System.getProperty(TMPDIR_PROPERTY);
    if (base == null || base.isEmpty()) {
      base = System.getProperty("java.io.tmpdir");
    }
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    Path dir = Paths.get(base).toAbsolutePath().resolve("snowflake-c-" + user);
    boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    try {
      if (posix) {
        Set<PosixFilePermission> owner = PosixFilePermissions.fromString("rwx------");
        if (!Files.isDirectory(dir)) {
          try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(owner));
          } catch (java.nio.file.FileAlreadyExistsException e) {
            // Created by another JVM meanwhile.
          }
        }
        if (Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
            && Files.getPosixFilePermissions(dir).equals(owner)
            && Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
          return dir;
        }
        // Someone else's folder, or too open: use a fresh one of our own.
        Path fresh =
            Files.createTempDirectory(
                Paths.get(base), "snowflake-c-", PosixFilePermissions.asFileAttribute(owner));
        fresh.toFile().deleteOnExit();
        return fresh;
      }
      Files.createDirectories(dir);
      return dir;
    } catch (IOException e) {
      throw linkError("cannot create a folder to extract the JNI library into under " + base, e);
    }
  }

  private static void loadFile(Path path, String origin) {
    try {
      System.load(path.toString());
    } catch (UnsatisfiedLinkError e) {
      UnsatisfiedLinkError wrapped =
          new UnsatisfiedLinkError(
              "snowflake-c: cannot load the JNI library from " + origin + ": " + e.getMessage());
      wrapped.initCause(e);
      throw wrapped;
    }
  }

  private static void checkVersion(String version) {
    String nativeVersion = Native.version();
    if (Native.versionNumber() != Native.headerVersionNumber() || !nativeVersion.equals(version)) {
      throw new UnsatisfiedLinkError(
          "snowflake-c: the JNI library is version "
              + nativeVersion
              + " but this jar is "
              + version
              + "; use the library built with this jar");
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static UnsatisfiedLinkError linkError(String what, Throwable cause) {
    UnsatisfiedLinkError e = new UnsatisfiedLinkError("snowflake-c: " + what + ": " + cause);
    e.initCause(cause);
    return e;
  }
}
