package io.snowflakec;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * Decoding, encoding and ranges of IDs: no generator needed, identical in every language.
 *
 * <pre>{@code
 * Layout discord = Layout.preset("discord");
 * Parts p = Snowflake.decode(175928847299117063L, discord);
 * System.out.println(p.toJson());
 * // {"id":"175928847299117063","time_ms":1462015105796,"time":"2016-04-30T11:18:25.796Z","worker":1,"process":0,"seq":7}
 *
 * long id = Snowflake.encode(discord, 1462015105796L, Map.of("worker", 1L, "process", 0L, "seq", 7L));
 * IdRange day = Snowflake.range(discord, 1462060800000L, 1462147199999L);
 * }</pre>
 */
public final class Snowflake {
  private Snowflake() {}

  /**
   * Splits an ID into its time and fields.
   *
   * @param id the ID
   * @param layout its layout
   * @return the parts
   * @throws InvalidArgumentException when the ID is negative or wider than the layout
   */
  public static Parts decode(long id, Layout layout) {
    Objects.requireNonNull(layout, "layout");
    return new Parts(layout, id, Native.decode(layout.raw(), id));
  }

  /**
   * Splits an ID given as decimal text.
   *
   * @param id the ID, for example {@code "175928847299117063"}
   * @param layout its layout
   * @return the parts
   * @throws InvalidArgumentException when the text is not an ID, or the ID does not fit the layout
   *     or a signed {@code long}
   */
  public static Parts decode(String id, Layout layout) {
    return decode(parseId(id), layout);
  }

  /**
   * Parses a decimal ID, rejecting signs, spaces, empty text and values above {@link
   * Long#MAX_VALUE}.
   *
   * @param text the decimal ID
   * @return the ID
   * @throws InvalidArgumentException when it is not one
   */
  public static long parseId(String text) {
    Objects.requireNonNull(text, "text");
    return Native.parseId(text);
  }

  /**
   * Builds the ID of a time and field values: the inverse of {@link #decode(long, Layout)}.
   *
   * @param layout the layout
   * @param timeMs the Unix time in ms, rounded down to the layout's tick
   * @param fields a value for every field but time
   * @return the ID
   * @throws InvalidArgumentException when a field is missing, unknown or does not fit, or the time
   *     is outside the layout's life
   */
  public static long encode(Layout layout, long timeMs, Map<String, Long> fields) {
    long timeUs;
    try {
      timeUs = Math.multiplyExact(timeMs, 1000L);
    } catch (ArithmeticException e) {
      throw new InvalidArgumentException(
          "The time " + timeMs + " ms is outside the layout's life (" + layout.spec() + ").");
    }
    return encodeUs(layout, timeUs, fields);
  }

  /**
   * Builds the ID of an instant and field values.
   *
   * @param layout the layout
   * @param time the instant, rounded down to the layout's tick
   * @param fields a value for every field but time
   * @return the ID
   * @throws InvalidArgumentException as {@link #encode(Layout, long, Map)}
   */
  public static long encode(Layout layout, Instant time, Map<String, Long> fields) {
    long timeUs;
    try {
      timeUs =
          Math.addExact(
              Math.multiplyExact(time.getEpochSecond(), 1_000_000L), time.getNano() / 1000);
    } catch (ArithmeticException e) {
      throw new InvalidArgumentException(
          "The time " + time + " is outside the layout's life (" + layout.spec() + ").");
    }
    return encodeUs(layout, timeUs, fields);
  }

  private static long encodeUs(Layout layout, long timeUs, Map<String, Long> fields) {
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(fields, "fields");
    String[] names = new String[fields.size()];
    long[] values = new long[fields.size()];
    int i = 0;
    for (Map.Entry<String, Long> e : fields.entrySet()) {
      names[i] = Objects.requireNonNull(e.getKey(), "field name");
      values[i] = Objects.requireNonNull(e.getValue(), "value of " + e.getKey());
      i++;
    }
    return Native.encode(layout.raw(), timeUs, names, values);
  }

  /**
   * The smallest and largest IDs whose time lies in {@code [t0Ms, t1Ms]}, both inclusive.
   *
   * @param layout the layout
   * @param t0Ms the first Unix millisecond
   * @param t1Ms the last Unix millisecond
   * @return the range
   * @throws InvalidArgumentException when no tick of the layout starts in the interval
   */
  public static IdRange range(Layout layout, long t0Ms, long t1Ms) {
    Objects.requireNonNull(layout, "layout");
    long[] r = Native.range(layout.raw(), t0Ms, t1Ms);
    return new IdRange(r[0], r[1]);
  }

  /**
   * The smallest and largest IDs whose time lies in {@code [t0, t1]}, to the millisecond.
   *
   * @param layout the layout
   * @param t0 the first instant
   * @param t1 the last instant
   * @return the range
   * @throws InvalidArgumentException when no tick of the layout starts in the interval
   */
  public static IdRange range(Layout layout, Instant t0, Instant t1) {
    return range(layout, t0.toEpochMilli(), t1.toEpochMilli());
  }

  /**
   * Formats Unix milliseconds as the canonical ISO-8601 UTC text, {@code
   * "2016-04-30T11:18:25.796Z"}.
   *
   * @param unixMs Unix milliseconds
   * @return the text
   */
  public static String formatIso(long unixMs) {
    return Native.formatIso(unixMs);
  }

  /**
   * The version of the native core in use, for example {@code "0.1.0"}.
   *
   * @return the version
   */
  public static String version() {
    return Native.version();
  }
}
