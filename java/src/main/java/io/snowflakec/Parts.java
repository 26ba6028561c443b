package io.snowflakec;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The parts of one decoded ID: its time and every field by name. Made by {@link
 * Snowflake#decode(long, Layout)}.
 *
 * <pre>{@code
 * Parts p = Snowflake.decode(175928847299117063L, Layout.preset("discord"));
 * p.timeMs();          // 1462015105796
 * p.time();            // 2016-04-30T11:18:25.796Z
 * p.fields();          // {worker=1, process=0, seq=7}
 * p.toJson();          // {"id":"175928847299117063","time_ms":1462015105796,...}
 * }</pre>
 */
public final class Parts {
  private final Layout layout;
  private final long id;
  private final long timeUs;
  private final long timeMs;
  private final long[] values;

  Parts(Layout layout, long id, long[] decoded) {
    this.layout = layout;
    this.id = id;
    this.timeUs = decoded[0];
    this.timeMs = decoded[1];
    this.values = java.util.Arrays.copyOfRange(decoded, 2, decoded.length);
  }

  /**
   * The ID.
   *
   * @return the ID
   */
  public long id() {
    return id;
  }

  /**
   * The layout it was decoded with.
   *
   * @return the layout
   */
  public Layout layout() {
    return layout;
  }

  /**
   * The Unix time of the start of the ID's tick, in milliseconds (rounded down).
   *
   * @return Unix ms
   */
  public long timeMs() {
    return timeMs;
  }

  /**
   * The Unix time of the start of the ID's tick, in microseconds.
   *
   * @return Unix µs
   */
  public long timeUs() {
    return timeUs;
  }

  /**
   * The start of the ID's tick.
   *
   * @return the instant
   */
  public Instant time() {
    return Instant.EPOCH.plus(timeUs, ChronoUnit.MICROS);
  }

  /**
   * The raw value of the time field: ticks since the epoch.
   *
   * @return the tick count
   */
  public long ticks() {
    return values[0];
  }

  /**
   * Every field but time, by name, in layout order.
   *
   * @return an unmodifiable map
   */
  public Map<String, Long> fields() {
    Map<String, Long> out = new LinkedHashMap<>();
    List<Layout.Field> fs = layout.fields();
    for (int i = 0; i < fs.size(); i++) {
      if (fs.get(i).kind() != Layout.Kind.TIME) {
        out.put(fs.get(i).name(), values[i]);
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /**
   * The value of one field (the tick count for the time field).
   *
   * @param name a field of the layout
   * @return its value
   * @throws InvalidArgumentException when the layout has no such field
   */
  public long get(String name) {
    List<Layout.Field> fs = layout.fields();
    for (int i = 0; i < fs.size(); i++) {
      if (fs.get(i).name().equals(name)) {
        return values[i];
      }
    }
    throw new InvalidArgumentException(
        "The layout " + layout.spec() + " has no field '" + name + "'.");
  }

  /**
   * The canonical JSON form, byte for byte the same as the C command line tool, Python and Node:
   * {@code {"id":"…","time_ms":…,"time":"…Z",<fields in layout order>}}.
   *
   * @return one compact JSON line
   */
  public String toJson() {
    return Native.text(Native.call(Native.PARTS_JSON, layout.raw(), id));
  }

  /** The canonical JSON form. */
  @Override
  public String toString() {
    return toJson();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Parts && ((Parts) o).id == id && ((Parts) o).layout.equals(layout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, layout);
  }
}
