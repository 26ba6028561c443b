package io.snowflakec;

/** Where a generator reads the time. */
public enum TimeSource {
  /** The wall clock, read on every call (the default). */
  WALL,
  /**
   * The wall clock read once at start, then advanced by the monotonic clock: a step of the wall
   * clock cannot reach a running generator.
   */
  MONOTONIC
}
