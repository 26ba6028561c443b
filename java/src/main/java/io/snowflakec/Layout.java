package io.snowflakec;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How an ID is packed: an ordered list of fields, most significant first, and an epoch. Immutable;
 * share it freely. Parsing and validation happen in the core.
 *
 * <pre>{@code
 * Layout twitter = Layout.preset("twitter");
 * Layout mine = Layout.parse("time:41@1ms,worker:10,seq:12", 1704067200000L);
 * Layout sony = Layout.parse("time:39@10ms,seq:8,machine:16", "2014-09-01T00:00:00Z");
 * System.out.println(mine.spec());           // time:41@1ms,worker:10,seq:12
 * System.out.println(mine.idsPerSecond());   // 4096000.0
 * System.out.println(mine.timeEnd());        // 2093-09-06T15:47:35.552Z
 * }</pre>
 */
public final class Layout {
  /** What a field holds. */
  public enum Kind {
    /** Units elapsed since the epoch; always the first field. */
    TIME,
    /** The per-tick counter. */
    SEQ,
    /** The clock sequence, bumped when the wall clock goes backwards. */
    CLOCK,
    /** A static value that makes a generator unique ({@code worker}, {@code datacenter}, …). */
    NODE
  }

  /**
   * One field of a layout.
   *
   * @param name the field's name
   * @param kind what it holds
   * @param bits its width
   * @param shift the position of its lowest bit in the ID
   * @param max its largest value, {@code 2^bits - 1}
   */
  public record Field(String name, Kind kind, int bits, int shift, long max) {}

  private final byte[] raw;
  private final Map<String, Object> description;
  private final List<Field> fields;

  private Layout(byte[] raw) {
    this.raw = raw;
    this.description = Facts.map(Native.call(Native.LAYOUT_FACTS, raw));
    List<Field> list = new ArrayList<>();
    for (Object f : (List<?>) description.get("fields")) {
      Map<?, ?> m = (Map<?, ?>) f;
      list.add(
          new Field(
              (String) m.get("name"),
              Kind.valueOf(((String) m.get("kind")).toUpperCase(Locale.ROOT)),
              ((Number) m.get("bits")).intValue(),
              ((Number) m.get("shift")).intValue(),
              ((Number) m.get("max")).longValue()));
    }
    this.fields = Collections.unmodifiableList(list);
  }

  static Layout ofRaw(byte[] raw) {
    return new Layout(raw);
  }

  byte[] raw() {
    return raw;
  }

  private long number(String key) {
    return ((Number) description.get(key)).longValue();
  }

  /**
   * Parses a layout spec such as {@code "time:41@1ms,worker:10,seq:12"}.
   *
   * @param spec the fields, most significant first: {@code name:bits[@unit]}
   * @param epochMs the Unix milliseconds of time value 0
   * @return the layout
   * @throws InvalidLayoutException naming the problem
   */
  public static Layout parse(String spec, long epochMs) {
    return parse(spec, Long.toString(epochMs));
  }

  /**
   * Parses a layout spec with its epoch given as text: Unix milliseconds or an ISO-8601 UTC instant
   * ({@code "2024-01-01"}, {@code "2024-01-01T00:00:00Z"}).
   *
   * @param spec the fields
   * @param epoch the epoch as text
   * @return the layout
   * @throws InvalidLayoutException naming the problem
   */
  public static Layout parse(String spec, String epoch) {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(epoch, "epoch");
    return new Layout(Native.layoutResolve(null, spec, epoch));
  }

  /**
   * Parses an epoch: Unix milliseconds ({@code "1288834974657"}) or an ISO-8601 UTC instant.
   *
   * @param epoch the text
   * @return Unix milliseconds
   * @throws InvalidLayoutException when it is neither
   */
  public static long parseEpoch(String epoch) {
    Objects.requireNonNull(epoch, "epoch");
    return Native.epochParse(epoch);
  }

  /**
   * A preset: {@code default}, {@code twitter}, {@code discord}, {@code sonyflake}, {@code baidu},
   * {@code instagram}, {@code jssafe}.
   *
   * @param name the preset's name
   * @return its layout and epoch
   * @throws InvalidLayoutException for an unknown name, listing the known ones
   */
  public static Layout preset(String name) {
    Objects.requireNonNull(name, "name");
    return new Layout(Native.layoutResolve(name, null, null));
  }

  /**
   * The names of the presets.
   *
   * @return the names, in the core's order
   */
  public static List<String> presets() {
    return List.of(Native.tableNames(Native.TABLE_PRESETS));
  }

  /**
   * The canonical spec, the time unit always given: {@code "time:41@1ms,worker:10,seq:12"}.
   *
   * @return the spec
   */
  public String spec() {
    return (String) description.get("spec");
  }

  /**
   * The Unix milliseconds of time value 0.
   *
   * @return the epoch
   */
  public long epochMs() {
    return number("epoch_ms");
  }

  /**
   * The epoch as an instant.
   *
   * @return the epoch
   */
  public Instant epoch() {
    return Instant.ofEpochMilli(epochMs());
  }

  /**
   * The length of one tick of the time field in microseconds.
   *
   * @return the time unit
   */
  public long unitUs() {
    return number("unit_us");
  }

  /**
   * The length of one tick of the time field.
   *
   * @return the time unit
   */
  public Duration unit() {
    return Duration.ofNanos(unitUs() * 1000);
  }

  /**
   * The sum of the field widths, at most 64.
   *
   * @return the width of an ID
   */
  public int totalBits() {
    return (int) number("total_bits");
  }

  /**
   * The fields, most significant first.
   *
   * @return an unmodifiable list
   */
  public List<Field> fields() {
    return fields;
  }

  /**
   * The field called {@code name}.
   *
   * @param name a field name
   * @return the field, or empty
   */
  public Optional<Field> field(String name) {
    return fields.stream().filter(f -> f.name().equals(name)).findFirst();
  }

  /**
   * The maximum IDs per second of one node: (largest sequence + 1) per tick.
   *
   * @return IDs per second
   */
  public double idsPerSecond() {
    return ((Number) description.get("ids_per_second")).doubleValue();
  }

  /**
   * How many distinct node values the layout can address.
   *
   * @return {@code 2^(sum of node field widths)}
   */
  public double nodeCapacity() {
    return ((Number) description.get("node_capacity")).doubleValue();
  }

  /**
   * The first Unix millisecond the time field cannot hold.
   *
   * @return the end of the layout's life
   */
  public long timeEndMs() {
    return number("time_end_ms");
  }

  /**
   * The first instant the time field cannot hold.
   *
   * @return the end of the layout's life
   */
  public Instant timeEnd() {
    return Instant.ofEpochMilli(timeEndMs());
  }

  /**
   * The largest ID the layout can hold, as an unsigned 64-bit value: for a 64-bit layout it is
   * above {@link Long#MAX_VALUE} (print it with {@link Long#toUnsignedString(long)}).
   *
   * @return the largest ID, unsigned
   */
  public long maxId() {
    return number("max_id");
  }

  /**
   * The preset this layout is (same spec and epoch), if any.
   *
   * @return the preset's name, or empty
   */
  public Optional<String> name() {
    return Optional.ofNullable((String) description.get("name"));
  }

  /**
   * The layout's description, the same keys in every language, in the core's order: {@code name}
   * (the preset's, or null), {@code spec}, {@code epoch_ms}, {@code unit_us}, {@code total_bits},
   * {@code ids_per_second}, {@code node_capacity}, {@code time_end_ms}, {@code max_id} and {@code
   * fields} (a map per field: {@code name}, {@code kind}, {@code bits}, {@code shift}, {@code
   * max}). Integers are {@code Long} ({@code max_id} of a 64-bit layout: a {@code BigInteger}).
   *
   * @return an ordered, unmodifiable map
   */
  public Map<String, Object> describe() {
    return description;
  }

  /** The spec and epoch. */
  @Override
  public String toString() {
    return spec() + " epoch " + Snowflake.formatIso(epochMs());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Layout
        && ((Layout) o).epochMs() == epochMs()
        && ((Layout) o).spec().equals(spec());
  }

  @Override
  public int hashCode() {
    return spec().hashCode() * 31 + Long.hashCode(epochMs());
  }
}
