package io.snowflakec;

/**
 * The natives, registered by {@code JNI_OnLoad} of the JNI library ({@code
 * bindings/java/snowflake_c_jni.c}). Layouts travel as the opaque bytes of the core's {@code
 * sfc_layout} value, generators as their address.
 */
final class Native {
  /** {@code now_us} argument meaning "read the generator's own clock". */
  static final long NOW_FROM_CLOCK = Long.MIN_VALUE;

  static {
    NativeLoader.load();
  }

  private Native() {}

  static native String version();

  static native int versionNumber();

  static native int headerVersionNumber();

  static native String statusName(int status);

  static native byte[] layoutParse(String spec, long epochMs);

  static native byte[] layoutPreset(String name);

  static native long epochParse(String text);

  static native String[] presetNames();

  static native String layoutSpec(byte[] layout);

  static native String[] layoutNames(byte[] layout);

  static native long[] layoutNumbers(byte[] layout);

  static native double[] layoutCapacity(byte[] layout);

  static native long[] decode(byte[] layout, long id);

  static native long parseId(String text);

  static native String formatId(long id, String encoding, boolean shortest);

  static native long parseIdAs(String text, String encoding);

  static native String partsJson(byte[] layout, long id);

  static native String formatIso(long unixMs);

  static native long encode(byte[] layout, long timeUs, String[] names, long[] values);

  static native long[] range(byte[] layout, long t0Ms, long t1Ms);

  static native long nodeValueParse(String text);

  static native int rollbackParse(String name);

  /** A duration option's whole ms, rounded up; InvalidArgumentException when out of range. */
  static native long durationMs(String option, long seconds, int nanos);

  static native long generatorNew(
      byte[] layout,
      String[] nodeNames,
      long[] nodeValues,
      int rollback,
      long maxWaitMs,
      long maxDriftMs,
      boolean randomStart,
      int timeSource,
      byte[] stateDir,
      long stateReserveMs,
      boolean guard,
      byte[] guardDir);

  static native void generatorFree(long handle);

  static native byte[] generatorLayout(long handle);

  static native long nowUs(long handle);

  static native void pause(long waitUs);

  /** The next ID (&gt;= 0), or {@code -1 - waitUs}; errors are thrown. */
  static native long next(long handle, long nowUs);

  /**
   * Fills {@code dst[off, off + len)}; returns the count filled. {@code out[0]} gets the count and
   * {@code out[1]} the wait asked for (or -1), both written before an error is thrown.
   */
  static native int nextIds(long handle, long nowUs, long[] dst, int off, int len, long[] out);

  /** {@code [long[] numbers, String[] strings, byte[] guard]}, see the glue. */
  static native Object[] stats(long handle);
}
