package io.snowflakec;

import java.time.Instant;
import java.util.List;
import java.util.Map;

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
 * IdRange day = Snowflake.range(discord, 1462060800000L, 1462147200000L); // [t0, t1)
 * }</pre>
 */
public final class Snowflake {
  /** The encodings' names by number, from the core: the natives take the number. */
  private static final String[] ENCODINGS = Native.tableNames(Native.TABLE_ENCODINGS);

  /**
   * The interned names by the low bits of their hash (the fewest bits that tell them apart), and
   * their numbers: a name written in the source is found with one comparison of references.
   */
  private static final String[] NAME_SLOTS = nameSlots();

  private static final int SLOT_MASK = NAME_SLOTS.length - 1;
  private static final int[] SLOT_NUMBERS = new int[NAME_SLOTS.length];

  static {
    for (int i = 0; i < ENCODINGS.length; i++) {
      SLOT_NUMBERS[ENCODINGS[i].hashCode() & SLOT_MASK] = i;
    }
  }

  private static String[] nameSlots() {
    int size = 16;
    String[] slots;
    do {
      size *= 2;
      slots = new String[size];
      for (String name : ENCODINGS) {
        int slot = name.hashCode() & (size - 1);
        if (slots[slot] != null) {
          slots = null; // shared: more bits
          break;
        }
        slots[slot] = name.intern();
      }
    } while (slots == null && size < 4096);
    return slots != null ? slots : new String[1]; // no slot: always by value
  }

  private Snowflake() {}

  /** An encoding's number; the core answers for a name that is none. */
  private static int encoding(String name) {
    // base32 and base62, the forms with codecs of their own, by reference first: for a name
    // written in the source both tests fold away once inlined, and the call goes to its codec.
    if (name == "base32" && IdText.BASE32 >= 0) {
      return IdText.BASE32;
    }
    if (name == "base62" && IdText.BASE62 >= 0) {
      return IdText.BASE62;
    }
    int slot =
        given(
                    name,
                    "encoding",
                    "Snowflake.format, parse or decode",
                    "name one (dec, hex, base32, base36, base58, base62)")
                .hashCode()
            & SLOT_MASK;
    return NAME_SLOTS[slot] == name ? SLOT_NUMBERS[slot] : encodingByValue(name);
  }

  private static int encodingByValue(String name) {
    for (int i = 0; i < ENCODINGS.length; i++) {
      if (ENCODINGS[i].equals(name)) {
        return i;
      }
    }
    return (int) Native.bits(Native.call(Native.ENCODING_NUMBER, name));
  }

  /**
   * Splits an ID into its time and fields.
   *
   * @param id the ID
   * @param layout its layout
   * @return the parts
   * @throws InvalidArgumentException when the layout is null (none is assumed), or the ID is
   *     negative or wider than the layout
   */
  public static Parts decode(long id, Layout layout) {
    return new Parts(layout, id, Native.decode(raw(layout), id));
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
    given(id, "id", "Snowflake.decode", "give the ID's decimal text, such as 175928847299117063");
    return decode(parseId(id), layout);
  }

  /**
   * Splits an ID given as text in an encoding (see {@link #format(long, String)}).
   *
   * @param id the ID's text, fixed width or shortest, for example {@code "0Czks0tP37X"}
   * @param encoding {@code "dec"}, {@code "hex"}, {@code "base32"}, {@code "base36"}, {@code
   *     "base58"} or {@code "base62"}
   * @param layout its layout
   * @return the parts
   * @throws InvalidArgumentException when the text is not an ID in that encoding, or the ID does
   *     not fit the layout or a signed {@code long}
   */
  public static Parts decode(String id, String encoding, Layout layout) {
    given(id, "id", "Snowflake.decode", "give the ID's text in the encoding");
    long value = parse(id, encoding);
    if (value < 0) {
      throw new InvalidArgumentException(
          "The ID "
              + Long.toUnsignedString(value)
              + " does not fit a signed Java long (its top bit is set); Java IDs are positive"
              + " longs, so use a layout of at most 63 bits.");
    }
    return decode(value, layout);
  }

  /**
   * An ID as text in the encoding's default form: {@code dec} the plain number ({@code
   * "175928847299117063"}, as JSON and every API print it), the other encodings their fixed width,
   * left-padded with the alphabet's zero, so that the strings of any two IDs sort (bytewise, {@link
   * String#compareTo}) as the IDs do. {@link #format(long, String, boolean)} asks for either form
   * (dec's 20 digits with {@code pad}).
   *
   * <table>
   *   <caption>Encodings</caption>
   *   <tr><th>name</th><th>alphabet</th><th>width</th></tr>
   *   <tr><td>dec</td><td>0-9</td><td>20</td></tr>
   *   <tr><td>hex</td><td>0-9a-f (parsed in any case)</td><td>16</td></tr>
   *   <tr><td>base32</td><td>Crockford, tsid-creator's string (parsed in any case, I and L as
   *       1, O as 0)</td><td>13</td></tr>
   *   <tr><td>base36</td><td>0-9a-z (parsed in any case)</td><td>13</td></tr>
   *   <tr><td>base58</td><td>Bitcoin</td><td>11</td></tr>
   *   <tr><td>base62</td><td>0-9A-Za-z, CosId's radix 62</td><td>11</td></tr>
   * </table>
   *
   * <p>The long's 64 bits are the ID, read unsigned as {@link Long#toUnsignedString(long)} does:
   * {@code -1L} is 2^64 - 1.
   *
   * @param id the ID
   * @param encoding the encoding's name
   * @return the text
   * @throws InvalidArgumentException for an unknown encoding
   */
  public static String format(long id, String encoding) {
    int e = encoding(encoding);
    return IdText.format(id, e, IdText.shortestByDefault(e));
  }

  /**
   * An ID as text, fixed width ({@code pad}) or shortest, whatever the encoding's default.
   *
   * @param id the ID, its 64 bits read unsigned
   * @param encoding the encoding's name (see {@link #format(long, String)})
   * @param pad true for the fixed width (dec's 20 digits too), false for the shortest form
   * @return the text
   * @throws InvalidArgumentException for an unknown encoding
   */
  public static String format(long id, String encoding, boolean pad) {
    return IdText.format(id, encoding(encoding), !pad);
  }

  /**
   * The ID a text stands for, fixed width or shortest. IDs above {@link Long#MAX_VALUE} come back
   * negative, with the same 64 bits ({@link Long#toUnsignedString(long)} prints them).
   *
   * @param text the text
   * @param encoding the encoding's name (see {@link #format(long, String)})
   * @return the ID
   * @throws InvalidArgumentException for an unknown encoding, empty text, text longer than the
   *     encoding's width, a character outside its alphabet (named with its position) or a value
   *     above 2^64 - 1
   */
  public static long parse(String text, String encoding) {
    given(text, "text", "Snowflake.parse", "give the ID's text in the encoding");
    return IdText.parse(text, encoding(encoding));
  }

  /**
   * Splits a UUIDv7 (RFC 9562) into its time and random bits.
   *
   * @param text 8-4-4-4-12 or 32 hex digits, either case
   * @return the UUID's parts
   * @throws InvalidArgumentException with the core's message for another length, a character that
   *     is not hex, a misplaced hyphen, a version other than 7 or a variant other than RFC 9562's
   */
  public static Uuid7 decodeUuid7(String text) {
    given(
        text,
        "text",
        "Snowflake.decodeUuid7",
        "give a UUIDv7's text (8-4-4-4-12 or 32 hex digits)");
    return new Uuid7((List<?>) Facts.value(Native.call(Native.UUID7, text)));
  }

  /**
   * Splits a UUIDv7 (RFC 9562) into its time and random bits.
   *
   * @param uuid the UUID
   * @return the UUID's parts
   * @throws InvalidArgumentException with the core's message when its version is not 7 or its
   *     variant not RFC 9562's
   */
  public static Uuid7 decodeUuid7(java.util.UUID uuid) {
    given(uuid, "uuid", "Snowflake.decodeUuid7", "give a version 7 UUID");
    return decodeUuid7(uuid.toString());
  }

  /**
   * The SQL that creates the table of leased node values ({@code snowflake_c_leases};
   * docs/leases.md), a no-op when it is there: the text of {@code snowflake-c lease sql} and of
   * {@code sql/leases.sql}, for a migration tool (Flyway, Liquibase) or a start-up step.
   *
   * @return the statement
   */
  public static String leaseTableSql() {
    return Native.text(Native.call(Native.LEASE_TABLE_SQL));
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
    given(
        text,
        "text",
        "Snowflake.parseId",
        "give the ID's decimal text, such as 175928847299117063");
    return Native.signed(IdText.parse(text, encoding("dec")), "ID");
  }

  /**
   * Builds the ID of a time and field values: the inverse of {@link #decode(long, Layout)}.
   *
   * @param layout the layout
   * @param timeMs the Unix time in ms, rounded down to the layout's tick
   * @param fields a value for every field but time
   * @return the ID
   * @throws InvalidArgumentException when the layout is null (none is assumed), a field is missing,
   *     unknown or does not fit, or the time is outside the layout's life
   */
  public static long encode(Layout layout, long timeMs, Map<String, Long> fields) {
    raw(layout);
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
    raw(layout);
    given(time, "time", "Snowflake.encode", "give the instant of the ID");
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
    byte[] raw = raw(layout);
    given(
        fields,
        "fields",
        "Snowflake.encode",
        "give a value for every field but time (Map.of() for a layout of time and seq only)");
    Object[] pairs = new Object[2 * fields.size()]; // {name, value, …}: the natives' map
    int i = 0;
    for (Map.Entry<String, Long> e : fields.entrySet()) {
      String name = given(e.getKey(), "field name", "Snowflake.encode", "name each field");
      long value =
          given(
              e.getValue(),
              "value of the field " + e.getKey(),
              "Snowflake.encode",
              "give each field a number");
      pairs[i++] = name;
      pairs[i++] = value;
    }
    return Native.signed(Native.bits(Native.call(Native.ENCODE, raw, timeUs, pairs)), "ID encoded");
  }

  /**
   * The smallest and largest IDs whose time lies in {@code [t0Ms, t1Ms)}: {@code t0Ms} included,
   * {@code t1Ms} not, so that consecutive windows (days, pages) never share an ID — the next window
   * starts at this one's {@code t1Ms}.
   *
   * @param layout the layout
   * @param t0Ms the first Unix millisecond, included
   * @param t1Ms the end, excluded
   * @return the range
   * @throws InvalidArgumentException when the layout is null (none is assumed), or no tick of the
   *     layout starts in the interval ({@code t1Ms <= t0Ms} included)
   */
  public static IdRange range(Layout layout, long t0Ms, long t1Ms) {
    List<?> r = (List<?>) Native.call(Native.RANGE, raw(layout), t0Ms, t1Ms);
    return new IdRange(
        Native.signed(Native.bits(r.get(0)), "smallest ID of the range"),
        Native.signed(Native.bits(r.get(1)), "largest ID of the range"));
  }

  /**
   * The smallest and largest IDs whose time lies in {@code [t0, t1)}, to the millisecond: as {@link
   * #range(Layout, long, long)}.
   *
   * @param layout the layout
   * @param t0 the start, included
   * @param t1 the end, excluded
   * @return the range
   * @throws InvalidArgumentException when no tick of the layout starts in the interval
   */
  public static IdRange range(Layout layout, Instant t0, Instant t1) {
    raw(layout);
    given(t0, "t0", "Snowflake.range", "give the window's first instant");
    given(t1, "t1", "Snowflake.range", "give the instant that ends the window");
    return range(layout, t0.toEpochMilli(), t1.toEpochMilli());
  }

  /**
   * Refuses a null argument: an {@link InvalidArgumentException} naming the parameter, the method
   * and what to give, as the core refuses a bad value (never a NullPointerException).
   */
  static <T> T given(T value, String parameter, String method, String what) {
    if (value == null) {
      throw new InvalidArgumentException(
          "The " + parameter + " given to " + method + " is null: " + what + ".");
    }
    return value;
  }

  /**
   * A layout's bytes for the core. IDs made elsewhere are read only under a layout the caller
   * names: a null one is refused by the core, as in every binding, with an {@link
   * InvalidArgumentException} saying that none is assumed (the core's message for a layout not
   * named, thrown by the native call given no layout).
   */
  private static byte[] raw(Layout layout) {
    if (layout == null) {
      Native.call(Native.RANGE, null, 0L, 1L); // throws the core's InvalidArgumentException
      throw new AssertionError("unreachable: the core refuses a missing layout");
    }
    return layout.raw();
  }

  /**
   * Formats Unix milliseconds as the canonical ISO-8601 UTC text, {@code
   * "2016-04-30T11:18:25.796Z"}.
   *
   * @param unixMs Unix milliseconds
   * @return the text
   */
  public static String formatIso(long unixMs) {
    return Native.text(Native.call(Native.FORMAT_TIME, unixMs));
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
