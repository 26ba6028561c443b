package io.snowflakec;

/**
 * The hot calls of a {@link Generator} into the core. This version, for Java 17 to 21, makes them
 * through JNI ({@link Native}); the jar's {@code META-INF/versions/22} holds a class of the same
 * name that makes them through FFM downcalls where native access is enabled, so that the
 * generator's logic stays in one place.
 */
final class Calls {
  private static final Calls JNI = new Calls();

  private Calls() {}

  /**
   * The calls for a generator.
   *
   * @param mayBlock whether the core's calls on it may wait on a lock held across file I/O (a state
   *     directory)
   */
  static Calls of(boolean mayBlock) {
    return JNI;
  }

  /** How the calls are made in this JVM: {@code "jni"} or {@code "ffm"}. */
  static String inThisJvm() {
    return "jni";
  }

  /** How this generator's calls are made: {@code "jni"} or {@code "ffm"}. */
  String kind() {
    return "jni";
  }

  /** As {@link Native#next(long, long)}. */
  long next(long handle, long nowUs) {
    return Native.next(handle, nowUs);
  }

  /** As {@link Native#nextIds(long, long, long[], int, int, long[])}. */
  int nextIds(long handle, long nowUs, long[] dst, int off, int len, long[] out) {
    return Native.nextIds(handle, nowUs, dst, off, len, out);
  }
}
