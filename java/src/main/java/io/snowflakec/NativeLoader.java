package io.snowflakec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
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
import java.util.HexFormat;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * Loads the JNI library that travels inside the jar.
 *
 * <p>The library is the resource {@code io/snowflakec/native/<os>-<arch>/}{@code
 * libsnowflake-c-jni-<version>.so}. It is extracted to a private folder of the temporary directory
 * (the system property {@value #TMPDIR_PROPERTY}, else {@code java.io.tmpdir}) under a name that
 * carries the version and a checksum of its bytes, so that several JVMs sharing that folder agree
 * on one file: extraction happens under a lock file, into a temporary file moved into place
 * atomically, and an existing file is used only when its bytes match. Files left by other versions
 * are removed once they have not been used for a day.
 *
 * <p>The system property {@value #PATH_PROPERTY} names a library file to load instead, for
 * platforms the jar does not carry.
 */
final class NativeLoader {
  /** System property: an explicit path of the JNI library to load. */
  static final String PATH_PROPERTY = "io.snowflakec.native.path";

  /** System property: the folder to extract the library into. */
  static final String TMPDIR_PROPERTY = "io.snowflakec.native.tmpdir";

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
      String resource = resourceName(version);
      byte[] bytes = readResource(resource);
      Path file = extract(bytes, version, resource);
      loadFile(file, "resource " + resource + " extracted to " + file);
    }
    checkVersion(version);
    loaded = true;
  }

  /** {@code io/snowflakec/native/linux-x86_64/libsnowflake-c-jni-0.1.0.so}. */
  static String resourceName(String version) {
    return "io/snowflakec/native/" + platform() + "/" + System.mapLibraryName(LIB_PREFIX + version);
  }

  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      os = "linux";
    } else if (os.startsWith("mac") || os.startsWith("darwin")) {
      os = "macos";
    } else if (os.startsWith("windows")) {
      os = "windows";
    } else {
      os = os.replaceAll("[^a-z0-9]", "");
    }
    switch (arch) {
      case "amd64":
      case "x86_64":
        arch = "x86_64";
        break;
      case "aarch64":
      case "arm64":
        arch = "aarch64";
        break;
      default:
        arch = arch.replaceAll("[^a-z0-9_]", "");
    }
    return os + "-" + arch;
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

  private static byte[] readResource(String resource) {
    try (InputStream in = NativeLoader.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new UnsatisfiedLinkError(
            "snowflake-c: this jar carries no JNI library for "
                + platform()
                + " (os.name="
                + System.getProperty("os.name")
                + ", os.arch="
                + System.getProperty("os.arch")
                + "): looked for the resource "
                + resource
                + ". Build it (java/build.sh) or name a library file with -D"
                + PATH_PROPERTY
                + "=PATH.");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw linkError("cannot read the resource " + resource, e);
    }
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
