package io.snowflakec;

import java.util.Map;

/**
 * A generator's counters, from {@link Generator#stats()}: exact when no call is running, close
 * otherwise.
 *
 * @param idsIssued IDs issued
 * @param waits times the generator had to wait: sequence exhausted or clock behind
 * @param borrowedTicks ticks issued ahead of the clock
 * @param rollbacks clock steps backwards beyond the allowed drift
 * @param rollbacksWaited rollbacks waited out
 * @param rollbacksRefused rollbacks answered with {@link ClockMovedBackwardsException}
 * @param clockBumps bumps of the clock field
 * @param lastTimeMs Unix ms of the last tick issued
 * @param clock the current clock-field value (0 without one)
 * @param rollback the rollback strategy in force: {@code error}, {@code wait}, {@code clock} or
 *     {@code borrow}
 * @param maxWaitMs the longest wait for the clock
 * @param maxDriftMs how far ahead of the clock IDs may be issued
 * @param nodes the node values, by field, in layout order
 * @param nodeSources where each node value came from: {@code explicit}, {@code env}, {@code host}
 *     or {@code pool}
 * @param guard the host-wide guard: {@code "held: <lock file>"} (no other live generator of this
 *     host can take these node values), {@code "off"} (turned off with {@link
 *     Generator.Builder#guard(boolean)}) or {@code "unavailable: <why>"} (no guard folder could be
 *     used: the generator runs unguarded)
 */
public record Stats(
    long idsIssued,
    long waits,
    long borrowedTicks,
    long rollbacks,
    long rollbacksWaited,
    long rollbacksRefused,
    long clockBumps,
    long lastTimeMs,
    long clock,
    String rollback,
    long maxWaitMs,
    long maxDriftMs,
    Map<String, Long> nodes,
    Map<String, String> nodeSources,
    String guard) {}
