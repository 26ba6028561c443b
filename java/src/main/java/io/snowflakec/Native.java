package io.snowflakec;

/**
 * The natives, registered by {@code JNI_OnLoad} of the JNI library ({@code
 * bindings/java/snowflake_c_jni.c}). Layouts travel as the opaque bytes of the core's {@code
 * sfc_layout} value, generators as their address (0 once closed: the core answers every call on
 * it). Values of the core's tables come as {@code Long} ({@code BigInteger} above {@link
 * Long#MAX_VALUE}), {@code Double}, {@code byte[]} for text and {@code null}; a list as {@code
 * Object[][]} (a row per element), a map as {@code Object[]{String[] keys, Object[] values}}: see
 * {@link Facts}.
 */
final class Native {
  /** {@code now_us} argument meaning "read the generator's own clock". */
  static final long NOW_FROM_CLOCK = Long.MIN_VALUE;

  /** The tables of {@link #tableNames(int)}. */
  static final int TABLE_OPTIONS = 0;

  static final int TABLE_STATUSES = 1;

  /** The stats' rows, named only where a counter (null elsewhere). */
  static final int TABLE_COUNTERS = 2;

  /** The stats' rows, named only where a gauge (null elsewhere). */
  static final int TABLE_GAUGES = 3;

  static final int TABLE_PRESETS = 4;

  /** The encodings' names, by number. */
  static final int TABLE_ENCODINGS = 5;

  static {
    NativeLoader.load();
  }

  private Native() {}

  /**
   * Row {@code row} of the core's calls ({@code sfk_call_at}) on arguments as the natives read them
   * (null, Boolean, Long, String, a layout's bytes, {@code Object[]{name, value, …}} for a map):
   * its result as {@link Facts#value} reads it, an ID a Long (a BigInteger above {@link
   * Long#MAX_VALUE}). The rows, by the core's names:
   */
  static native Object call(int row, Object... args);

  private static native int callRow(String name);

  static final int FORMAT_ID = callRow("format_id");
  static final int PARSE_ID = callRow("parse_id");
  static final int UUID7 = callRow("uuid7");
  static final int FORMAT_TIME = callRow("format_time");
  static final int LEASE_TABLE_SQL = callRow("lease_table_sql");
  static final int LAYOUT_FACTS = callRow("layout_facts");
  static final int ENCODE = callRow("encode");
  static final int RANGE = callRow("range");
  static final int PARTS_JSON = callRow("parts_json");
  static final int ENCODING_NUMBER = callRow("encoding_number");

  /** A text {@link #call} made. */
  static String text(Object made) {
    return (String) Facts.value(made);
  }

  /** The 64 bits of an ID {@link #call} made. */
  static long bits(Object made) {
    return ((Number) made).longValue();
  }

  /** An ID as a Java long: refused when its top bit is set (Java longs are signed). */
  static long signed(long id, String what) {
    if (id < 0) {
      throw new InvalidArgumentException(
          "The "
              + what
              + " "
              + Long.toUnsignedString(id)
              + " does not fit a signed Java long (its top bit is set); Java IDs are positive"
              + " longs, so use a layout of at most 63 bits.");
    }
    return id;
  }

  static native String version();

  static native int versionNumber();

  static native int headerVersionNumber();

  /**
   * The names of a table's rows, in the core's order: options (snake_case), statuses (by number,
   * null for those that are no error), layout facts, field facts, stats.
   */
  static native String[] tableNames(int table);

  /** A layout by the core's one rule for the preset/spec/epoch trio (null: not given). */
  static native byte[] layoutResolve(String preset, String spec, String epoch);

  static native long epochParse(String text);

  static native long[] decode(byte[] layout, long id);

  /**
   * Row {@code i} of the encodings as data ({@code sfc_encoding_at}): {@code Object[]{byte[]
   * digits, byte[256] values, int[]{radix, width, fixedByDefault (0 or 1)}}}, null past the last.
   */
  static native Object[] encodingRow(int i);

  /** What {@link #make} makes. */
  static final int MAKE_GENERATOR = 0;

  /**
   * A lease for the node field given as {@code "lease"} (or by its environment variable); 0 when no
   * node field is.
   */
  static final int MAKE_LEASE = 1;

  /** The generator on the value the lease acquired. */
  static final int MAKE_LEASED = 2;

  /**
   * A generator or lease ({@code kind}, one of MAKE_*; {@code lease} for MAKE_LEASED) from its
   * arguments, read by the binding kit: maps as {@code Object[]{key, value, …}}. {@code trio} holds
   * {@code preset}, {@code layout} (a Layout's raw bytes or a spec) and {@code epoch} (text, or
   * null when not given); {@code node} is {@code {"node", map}}, the node values by field (a null
   * key: the layout's only node field); {@code options} the options by name as given. Values are
   * null, Boolean, Long, Double, String, byte[] (a path) or Duration.
   */
  static native long make(int kind, long lease, Object[] trio, Object[] node, Object[] options);

  static native void generatorFree(long handle);

  /** Closes without freeing: racing calls issue before it or get the closed error. */
  static native void generatorClose(long handle);

  /** Whether a call may wait on a lock the generator holds across file I/O (a state folder). */
  static native boolean mayBlock(long handle);

  /** sfc_generator_closed: closed, by close() or by a take-over. */
  static native boolean generatorClosed(long handle);

  /**
   * The core's fast-path rule, or null where the generator has none: {@code
   * Object[]{long[]{epochMs, timeShift, timeMax, seqOne, seqMask, keepMask}, word, closedTicks}},
   * the last two direct buffers of 8 bytes over the core's state word and its count of the IDs of
   * ticks left.
   */
  static native Object[] fastRule(long handle);

  /**
   * What the user of a new generator should be told (its node value unguarded, its layout ending):
   * a list of [kind, text], for {@link Facts#value}.
   */
  static native Object generatorWarnings(long handle);

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

  /** Throws the error the last FFM entry point kept on this thread ({@code snowflake_c_ffm.h}). */
  static native void throwPending();

  /** The stats by name, for {@link Facts#value}. */
  static native Object stats(long handle);

  // ---- leases (the core's sfc_lease_*; LeaseHost runs their statements) ----

  /**
   * The statement due now: {@code Object[]{Long step, Long waitUs, String sql, String[] params}},
   * sql and params null when nothing is due (step 0: wait waitUs).
   */
  static native Object[] leaseDue(long lease);

  /** The row the statement returned, as text (null: no row); throws what the core makes of it. */
  static native void leaseDone(long lease, String[] row);

  /** The statement could not be run: the driver's message. */
  static native void leaseFailed(long lease, String why);

  /** True once a value is held, false while the acquire goes on; else throws why. */
  static native boolean leaseAcquired(long lease);

  /** Whether IDs may be issued now. */
  static native boolean leaseValid(long lease);

  /** The statement that gives the value back, as {@link #leaseDue}'s, or null. */
  static native Object[] leaseRelease(long lease);

  /** The lease's stats by the core's names (state, …, duration_ms), for {@link Facts#value}. */
  static native Object leaseStats(long lease);

  /** Frees the lease (its generator freed first). */
  static native void leaseFree(long lease);

  /** The SQL that creates the lease table (idempotent). */
}
