package io.snowflakec;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A generator's counters, from {@link Generator#stats()}: exact when no call is running, close
 * otherwise. {@link #asMap()} holds them under the core's names ({@code ids_issued}, {@code waits},
 * … {@code guard}), in the core's order, the same keys as in every language; the getters read that
 * map.
 */
public final class Stats {
  private final Map<String, Object> map;

  Stats(Map<String, Object> map) {
    this.map = map;
  }

  /**
   * Every stat under the core's name, in the core's order: counters as {@code Long}, {@code
   * rollback} and {@code guard} as {@code String}, {@code node} and {@code node_sources} as maps by
   * node field.
   *
   * @return an ordered, unmodifiable map
   */
  public Map<String, Object> asMap() {
    return map;
  }

  /**
   * The stats that only grow while the generator lives ({@code ids_issued}, {@code waits}, …), by
   * the core's table: a monitoring system's counters.
   *
   * @return their names, in the core's order
   */
  public static List<String> counters() {
    return Facts.COUNTERS;
  }

  /**
   * The stats that go up and down ({@code last_time_ms}, {@code clock}, …), by the core's table: a
   * monitoring system's gauges.
   *
   * @return their names, in the core's order
   */
  public static List<String> gauges() {
    return Facts.GAUGES;
  }

  private long number(String key) {
    return ((Number) map.get(key)).longValue();
  }

  /**
   * IDs issued.
   *
   * @return the count
   */
  public long idsIssued() {
    return number("ids_issued");
  }

  /**
   * Times a call had to wait: a tick's sequence used up, the clock behind.
   *
   * @return the count
   */
  public long waits() {
    return number("waits");
  }

  /**
   * Ticks issued ahead of the clock.
   *
   * @return the count
   */
  public long borrowedTicks() {
    return number("borrowed_ticks");
  }

  /**
   * Clock steps backwards beyond the allowed drift.
   *
   * @return the count
   */
  public long rollbacks() {
    return number("rollbacks");
  }

  /**
   * Rollbacks waited out.
   *
   * @return the count
   */
  public long rollbacksWaited() {
    return number("rollbacks_waited");
  }

  /**
   * Rollbacks answered with {@link ClockMovedBackwardsException}.
   *
   * @return the count
   */
  public long rollbacksRefused() {
    return number("rollbacks_refused");
  }

  /**
   * Bumps of the clock field.
   *
   * @return the count
   */
  public long clockBumps() {
    return number("clock_bumps");
  }

  /**
   * Pool values taken by the {@code switch} rollback strategy.
   *
   * @return the count
   */
  public long nodeSwitches() {
    return number("node_switches");
  }

  /**
   * Unix ms of the last tick issued.
   *
   * @return Unix ms
   */
  public long lastTimeMs() {
    return number("last_time_ms");
  }

  /**
   * The current clock-field value (0 without one).
   *
   * @return the clock value
   */
  public long clock() {
    return number("clock");
  }

  /**
   * The rollback strategy in force: {@code error}, {@code wait}, {@code clock}, {@code borrow} or
   * {@code switch}.
   *
   * @return its name
   */
  public String rollback() {
    return (String) map.get("rollback");
  }

  /**
   * The longest wait for the clock, in ms.
   *
   * @return ms
   */
  public long maxWaitMs() {
    return number("max_wait_ms");
  }

  /**
   * How far ahead of the clock IDs may be issued, in ms.
   *
   * @return ms
   */
  public long maxDriftMs() {
    return number("max_drift_ms");
  }

  /**
   * The node values, by field, in layout order.
   *
   * @return an unmodifiable map
   */
  @SuppressWarnings("unchecked")
  public Map<String, Long> nodes() {
    return (Map<String, Long>) map.get("node");
  }

  /**
   * Where each node value came from: {@code explicit}, {@code env}, {@code host} or {@code pool}.
   *
   * @return an unmodifiable map, by field
   */
  @SuppressWarnings("unchecked")
  public Map<String, String> nodeSources() {
    return (Map<String, String>) map.get("node_sources");
  }

  /**
   * The guard: {@code "held: <the claim's name>"} (no other live generator of this host can issue
   * these IDs) or {@code "off"} (turned off with {@link Generator.Builder#guard(boolean)}).
   *
   * @return the guard's state
   */
  public String guard() {
    return (String) map.get("guard");
  }

  /**
   * The lease of a node value leased from PostgreSQL ({@link Generator.Builder#lease(String)}),
   * under the core's names, the keys of the CLI's {@code gen --stats --json} and of every language:
   * {@code state} ({@code "acquiring"}, {@code "held"}, {@code "expired"}, {@code "lost"} or {@code
   * "released"}), {@code field} and {@code value} (the node field and the value held), {@code
   * expires_ms} (Unix ms: this host's deadline), {@code horizon_ms} (Unix ms: no ID past it),
   * {@code renewals}, {@code failures}, {@code error} (the last failure, or "") and {@code
   * duration_ms}. In {@link #asMap()} as {@code "lease"}.
   *
   * @return the lease's stats, or empty when the generator's node values are not leased
   */
  @SuppressWarnings("unchecked")
  public Optional<Map<String, Object>> lease() {
    return Optional.ofNullable((Map<String, Object>) map.get("lease"));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Stats && ((Stats) o).map.equals(map);
  }

  @Override
  public int hashCode() {
    return map.hashCode();
  }

  /** The map, {@code Stats{ids_issued=…, …}}. */
  @Override
  public String toString() {
    return "Stats" + map;
  }
}
