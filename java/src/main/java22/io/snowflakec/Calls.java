package io.snowflakec;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The hot calls of a {@link Generator} into the core, Java 22+: FFM downcalls into the entry points
 * of the same native library ({@code bindings/java/snowflake_c_ffm.h}), which cost less than half a
 * JNI transition. Used where this module has native access ({@code
 * --enable-native-access=ALL-UNNAMED} on the class path, {@code =io.snowflakec} on the module
 * path); without it, JNI as on Java 17, so that the library never triggers the JVM's warning on
 * restricted methods. A generator whose calls may wait on file I/O (a state directory) keeps JNI as
 * well: critical downcalls hold off the garbage collector while they run.
 *
 * <p>Memory safety is the {@link Generator}'s, as for JNI: the handle is 0 once closed (the core
 * answers the closed error) and the native memory is freed by the Cleaner only once the generator
 * is unreachable, which every call prevents to its end.
 */
final class Calls {
  /** What the FFM entry points answer when they failed: the error waits in {@link Native}. */
  private static final long FAILED = Long.MIN_VALUE;

  /** The most IDs one downcall fills: a critical call holds off the garbage collector. */
  private static final int CHUNK = 8192;

  private static final MethodHandle NEXT;
  private static final MethodHandle NEXT_IDS;

  private static final String KIND;

  private static final Calls JNI = new Calls(false);
  private static final Calls FFM = new Calls(true);

  static {
    MethodHandle[] handles = downcalls();
    NEXT = handles[0];
    NEXT_IDS = handles[1];
    KIND = NEXT != null ? "ffm" : "jni";
  }

  /**
   * The downcalls {next, nextIds}, or nulls where this module has no native access (or {@code
   * -Dio.snowflakec.calls=jni} asks for JNI).
   */
  @SuppressWarnings("restricted") // called only with native access enabled
  private static MethodHandle[] downcalls() {
    MethodHandle[] handles = new MethodHandle[2];
    if (!Calls.class.getModule().isNativeAccessEnabled()
        || "jni".equals(System.getProperty("io.snowflakec.calls"))) {
      return handles;
    }
    Native.versionNumber(); // loads the library (Native's initializer) for loaderLookup
    Linker linker = Linker.nativeLinker();
    SymbolLookup lookup = SymbolLookup.loaderLookup();
    MemorySegment next = lookup.find("snowflakec_ffm_next").orElse(null);
    MemorySegment nextIds = lookup.find("snowflakec_ffm_next_ids").orElse(null);
    if (next == null || nextIds == null) {
      return handles;
    }
    handles[0] =
        linker.downcallHandle(
            next,
            FunctionDescriptor.of(
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            Linker.Option.critical(false));
    // The native side writes the IDs into the Java array: a critical call with heap access.
    handles[1] =
        linker.downcallHandle(
            nextIds,
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS,
                ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS),
            Linker.Option.critical(true));
    return handles;
  }

  private final boolean ffm;

  private Calls(boolean ffm) {
    this.ffm = ffm;
  }

  /**
   * The calls for a generator.
   *
   * @param mayBlock whether the core's calls on it may wait on a lock held across file I/O (a state
   *     directory)
   */
  static Calls of(boolean mayBlock) {
    return NEXT != null && !mayBlock ? FFM : JNI;
  }

  /** How the calls are made in this JVM: {@code "jni"} or {@code "ffm"}. */
  static String inThisJvm() {
    return KIND;
  }

  /** How this generator's calls are made: {@code "jni"} or {@code "ffm"}. */
  String kind() {
    return ffm ? "ffm" : "jni";
  }

  /** As {@link Native#next(long, long)}. */
  long next(long handle, long nowUs) {
    if (!ffm) {
      return Native.next(handle, nowUs);
    }
    long r;
    try {
      r = (long) NEXT.invokeExact(handle, nowUs);
    } catch (Throwable e) {
      throw rethrow(e);
    }
    if (r == FAILED) {
      Native.throwPending();
    }
    return r;
  }

  /** As {@link Native#nextIds(long, long, long[], int, int, long[])}. */
  int nextIds(long handle, long nowUs, long[] dst, int off, int len, long[] out) {
    if (!ffm) {
      return Native.nextIds(handle, nowUs, dst, off, len, out);
    }
    MemorySegment ids = MemorySegment.ofArray(dst);
    MemorySegment result = MemorySegment.ofArray(out);
    int done = 0;
    for (; ; ) {
      int want = Math.min(len - done, CHUNK);
      int failed;
      try {
        failed =
            (int)
                NEXT_IDS.invokeExact(
                    handle,
                    nowUs,
                    ids.asSlice((long) (off + done) * Long.BYTES, (long) want * Long.BYTES),
                    want,
                    result);
      } catch (Throwable e) {
        throw rethrow(e);
      }
      int got = (int) out[0];
      done += got;
      out[0] = done;
      if (failed != 0) {
        Native.throwPending();
      }
      if (got < want || done == len) {
        return done;
      }
    }
  }

  private static RuntimeException rethrow(Throwable e) {
    if (e instanceof RuntimeException r) {
      throw r;
    }
    if (e instanceof Error r) {
      throw r;
    }
    throw new IllegalStateException(e);
  }
}
