package io.snowflakec.bench;

/**
 * The floor of the design for Java: a minimal JNI binding doing what {@code Generator.nextId()}
 * does at the least — read the wall clock, derive the millisecond tick, compare-and-swap one 64-bit
 * word (benchmarks/floor/floor.h) — and return the ID as a {@code long}. Loaded from the path in
 * the system property {@value #PROPERTY} ({@code benchmarks/java/floor/build.sh} builds it).
 */
final class Floor {
  static final String PROPERTY = "snowflakec.bench.floor";

  static {
    String path = System.getProperty(PROPERTY);
    if (path == null) {
      throw new IllegalStateException(
          "no -D" + PROPERTY + "=<path of libsfc_floor.so> (benchmarks/java/floor/build.sh)");
    }
    System.load(path);
  }

  private Floor() {}

  /** The wide layout's floor: {@code time:41@1ms,worker:1,seq:21}, worker 1. */
  static long wide() {
    return create(1704067200000L, 1, 21, 1);
  }

  static native long create(long epochMs, int nodeBits, int seqBits, long node);

  static native long next(long handle);

  static native void free(long handle);
}
