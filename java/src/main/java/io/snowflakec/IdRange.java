package io.snowflakec;

/**
 * The smallest and largest IDs of a time interval, for range scans and pagination: {@code WHERE id
 * BETWEEN min AND max}. Made by {@link Snowflake#range(Layout, long, long)}, for a half-open
 * interval {@code [t0, t1)}: adjacent windows never share an ID.
 *
 * @param min the smallest ID whose time lies in the interval
 * @param max the largest ID whose time lies in the interval
 */
public record IdRange(long min, long max) {}
