/**
 * snowflake-c: 64-bit, time-ordered unique IDs from the C core, through JNI.
 *
 * <p>The module exports {@code io.snowflakec} and needs {@code java.base} and {@code java.sql} (the
 * JDBC interfaces through which a leased node value runs its statements). The JNI library of each
 * target travels inside it as a resource ({@code io/snowflakec/native/<target>/<file>}), which the
 * module reads itself: the jar works on the module path, on the class path, and in a runtime image
 * made by {@code jlink}.
 */
module io.snowflakec {
  requires transitive java.sql;

  exports io.snowflakec;
}
