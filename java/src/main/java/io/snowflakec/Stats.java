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

  // <!-- generated: stats -->
  /**
   * IDs issued.
   *
   * @return the count
   */
  public long idsIssued() {
    return number("ids_issued");
  }

  /**
   * Times a call waited for the next tick.
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
   * Clock steps backwards beyond max_drift.
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
   * Rollbacks answered with an error.
   *
   * @return the count
   */
  public long rollbacksRefused() {
    return number("rollbacks_refused");
  }

  /**
   * Times the clock field was bumped.
   *
   * @return the count
   */
  public long clockBumps() {
    return number("clock_bumps");
  }

  /**
   * Pool values taken by rollback=switch.
   *
   * @return the count
   */
  public long nodeSwitches() {
    return number("node_switches");
  }

  /**
   * Unix ms of the last tick issued.
   *
   * @return the value
   */
  public long lastTimeMs() {
    return number("last_time_ms");
  }

  /**
   * The clock field's value (0 without one).
   *
   * @return the value
   */
  public long clock() {
    return number("clock");
  }

  /**
   * The rollback strategy in force.
   *
   * @return the text
   */
  public String rollback() {
    return (String) map.get("rollback");
  }

  /**
   * The longest wait in force, in ms.
   *
   * @return the value
   */
  public long maxWaitMs() {
    return number("max_wait_ms");
  }

  /**
   * The drift allowed, in ms.
   *
   * @return the value
   */
  public long maxDriftMs() {
    return number("max_drift_ms");
  }

  /**
   * The node values, by field.
   *
   * @return an unmodifiable map, by node field
   */
  @SuppressWarnings("unchecked")
  public Map<String, Long> nodes() {
    return (Map<String, Long>) map.get("node");
  }

  /**
   * Where each node value came from.
   *
   * @return an unmodifiable map, by node field
   */
  @SuppressWarnings("unchecked")
  public Map<String, String> nodeSources() {
    return (Map<String, String>) map.get("node_sources");
  }

  /**
   * Held: &lt;the host-wide claim&gt;, or off.
   *
   * @return the text
   */
  public String guard() {
    return (String) map.get("guard");
  }

  // <!-- end generated -->

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
