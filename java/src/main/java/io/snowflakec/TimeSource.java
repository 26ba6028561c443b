package io.snowflakec;

/** Where a generator reads the time. */
public enum TimeSource {
  /** The wall clock, read on every call (the default). */
  WALL,
  /**
   * The wall clock read once at start, then advanced by the monotonic clock: a step of the wall
   * clock cannot reach a running generator.
   */
  MONOTONIC,
  /**
   * The wall clock, read again once the processor's counter shows the last reading's millisecond
   * over (Linux on x86-64's invariant TSC or arm64's virtual counter): a call costs about a third
   * of a clock read, and a step of the wall clock is seen up to one tick late. Elsewhere, and for
   * ticks other than 1 ms, as {@link #WALL}.
   */
  COUNTER
}
