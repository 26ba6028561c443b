package io.snowflakec;

/**
 * An epoch of this test run's own: 2024-01-01 plus up to a day, in ms. The guard claims an ID space
 * (the epoch among it) and node bits host-wide, so generators of a layout at this epoch meet no
 * other program of the machine, and IDs one of them leaves ahead of the clock are handed over to no
 * one else. A child JVM that must meet this one gets the epoch as an argument.
 */
final class RunEpoch {
  static final long MS =
      1704067200000L
          + Math.floorMod(
              ProcessHandle.current().pid() * 2654435761L + System.nanoTime(), 86_400_000L);

  private RunEpoch() {}

  /**
   * A layout at this run's epoch.
   *
   * @param spec the fields, for example {@code "time:41@1ms,worker:10,seq:12"}
   * @return the layout
   */
  static Layout layout(String spec) {
    return Layout.parse(spec, MS);
  }
}
