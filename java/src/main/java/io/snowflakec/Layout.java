package io.snowflakec;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
  private final String spec;
  private final long epochMs;
  private final long unitUs;
  private final int totalBits;
  private final long timeEndMs;
  private final long maxId;
  private final List<Field> fields;
  private final double idsPerSecond;
  private final double nodeCapacity;

  private Layout(byte[] raw) {
    this.raw = raw;
    this.spec = Native.layoutSpec(raw);
    long[] n = Native.layoutNumbers(raw);
    String[] names = Native.layoutNames(raw);
    double[] capacity = Native.layoutCapacity(raw);
    this.epochMs = n[0];
    this.unitUs = n[1];
    this.totalBits = (int) n[2];
    this.timeEndMs = n[3];
    this.maxId = n[4];
    int count = (int) n[5];
    Kind[] kinds = Kind.values();
    List<Field> list = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int at = 8 + 4 * i;
      list.add(
          new Field(names[i], kinds[(int) n[at]], (int) n[at + 1], (int) n[at + 2], n[at + 3]));
    }
    this.fields = Collections.unmodifiableList(list);
    this.idsPerSecond = capacity[0];
    this.nodeCapacity = capacity[1];
  }

  static Layout ofRaw(byte[] raw) {
    return new Layout(raw);
  }

  byte[] raw() {
    return raw;
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
    Objects.requireNonNull(spec, "spec");
    return new Layout(Native.layoutParse(spec, epochMs));
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
    return parse(spec, parseEpoch(epoch));
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
   * {@code instagram}.
   *
   * @param name the preset's name
   * @return its layout and epoch
   * @throws InvalidLayoutException for an unknown name, listing the known ones
   */
  public static Layout preset(String name) {
    Objects.requireNonNull(name, "name");
    return new Layout(Native.layoutPreset(name));
  }

  /**
   * The names of the presets.
   *
   * @return the names, in the core's order
   */
  public static List<String> presets() {
    return List.of(Native.presetNames());
  }

  /**
   * The canonical spec, the time unit always given: {@code "time:41@1ms,worker:10,seq:12"}.
   *
   * @return the spec
   */
  public String spec() {
    return spec;
  }

  /**
   * The Unix milliseconds of time value 0.
   *
   * @return the epoch
   */
  public long epochMs() {
    return epochMs;
  }

  /**
   * The epoch as an instant.
   *
   * @return the epoch
   */
  public Instant epoch() {
    return Instant.ofEpochMilli(epochMs);
  }

  /**
   * The length of one tick of the time field in microseconds.
   *
   * @return the time unit
   */
  public long unitUs() {
    return unitUs;
  }

  /**
   * The length of one tick of the time field.
   *
   * @return the time unit
   */
  public Duration unit() {
    return Duration.ofNanos(unitUs * 1000);
  }

  /**
   * The sum of the field widths, at most 64.
   *
   * @return the width of an ID
   */
  public int totalBits() {
    return totalBits;
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
    return idsPerSecond;
  }

  /**
   * How many distinct node values the layout can address.
   *
   * @return {@code 2^(sum of node field widths)}
   */
  public double nodeCapacity() {
    return nodeCapacity;
  }

  /**
   * The first Unix millisecond the time field cannot hold.
   *
   * @return the end of the layout's life
   */
  public long timeEndMs() {
    return timeEndMs;
  }

  /**
   * The first instant the time field cannot hold.
   *
   * @return the end of the layout's life
   */
  public Instant timeEnd() {
    return Instant.ofEpochMilli(timeEndMs);
  }

  /**
   * The largest ID the layout can hold, as an unsigned 64-bit value: for a 64-bit layout it is
   * above {@link Long#MAX_VALUE} (print it with {@link Long#toUnsignedString(long)}).
   *
   * @return the largest ID, unsigned
   */
  public long maxId() {
    return maxId;
  }

  /**
   * A description: spec, epoch, capacity and life.
   *
   * @return for example {@code "time:41@1ms,worker:10,seq:12 epoch 2024-01-01T00:00:00Z: ..."}
   */
  public String describe() {
    return String.format(
        java.util.Locale.ROOT,
        "%s epoch %s: %.0f IDs/s per node, %.0f nodes, time runs out at %s",
        spec,
        Native.formatIso(epochMs),
        idsPerSecond,
        nodeCapacity,
        Native.formatIso(timeEndMs));
  }

  /** The spec and epoch. */
  @Override
  public String toString() {
    return spec + " epoch " + Native.formatIso(epochMs);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Layout && ((Layout) o).epochMs == epochMs && ((Layout) o).spec.equals(spec);
  }

  @Override
  public int hashCode() {
    return spec.hashCode() * 31 + Long.hashCode(epochMs);
  }
}
