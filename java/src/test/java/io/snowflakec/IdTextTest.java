package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The string forms written and read in Java ({@link IdText}, behind {@link Snowflake#format} and
 * {@link Snowflake#parse}) against the core's own, called through JNI ({@link Native#call} of
 * format_id and parse_id): the same text for every ID, and for every text the same ID or the same
 * exception with the same message. The shared vectors (VectorTest) pin the values themselves.
 */
class IdTextTest {
  static final String[] NAMES = Native.tableNames(Native.TABLE_ENCODINGS);
  static final int RANDOM = 100_000;

  /** The core's text of the ID (its 64 bits unsigned) in an explicit form. */
  static String coreFormat(long id, int enc, boolean shortest) {
    return Native.text(
        Native.call(Native.FORMAT_ID, Long.toUnsignedString(id), NAMES[enc], !shortest));
  }

  /** The core's ID of the text, its 64 bits in a long. */
  static long coreParse(String text, int enc) {
    return Native.bits(Native.call(Native.PARSE_ID, text, NAMES[enc]));
  }

  /** 0, 1, 2^63 - 1, 2^63, 2^64 - 1, and radix^k - 1, radix^k, radix^k + 1 below 2^64. */
  static List<Long> edges(int radix) {
    List<Long> ids = new ArrayList<>(List.of(0L, 1L, Long.MAX_VALUE, Long.MIN_VALUE, -1L));
    BigInteger top = BigInteger.ONE.shiftLeft(64);
    BigInteger r = BigInteger.valueOf(radix);
    for (BigInteger p = r; p.compareTo(top) < 0; p = p.multiply(r)) {
      ids.add(p.longValue() - 1);
      ids.add(p.longValue());
      ids.add(p.longValue() + 1);
    }
    return ids;
  }

  static int radix(int enc) {
    return digits(enc).length();
  }

  /** The encoding's digits in order, as the core writes them. */
  static String digits(int enc) {
    StringBuilder out = new StringBuilder();
    String previous = null;
    for (long d = 0; ; d++) {
      String s = coreFormat(d, enc, true);
      if (s.length() > 1 || s.equals(previous)) {
        return out.toString();
      }
      out.append(s);
      previous = s;
    }
  }

  static void sameFormat(long id, int enc) {
    for (boolean shortest : new boolean[] {false, true}) {
      assertEquals(
          coreFormat(id, enc, shortest),
          Snowflake.format(id, NAMES[enc], !shortest),
          () -> NAMES[enc] + (shortest ? " shortest " : " fixed ") + Long.toUnsignedString(id));
    }
  }

  /** The core's answer as a value or the exception's class and message. */
  static String outcome(Executable f) {
    try {
      return "id " + Long.toUnsignedString(f.run());
    } catch (SnowflakeException e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  interface Executable {
    long run();
  }

  static void sameParse(String text, int enc) {
    String core = outcome(() -> coreParse(text, enc));
    String java = outcome(() -> Snowflake.parse(text, NAMES[enc]));
    assertEquals(core, java, () -> NAMES[enc] + " parse of '" + text + "'");
  }

  @Test
  void formatsAsTheCoreAtEveryWidthsEdge() {
    for (int enc = 0; enc < NAMES.length; enc++) {
      for (long id : edges(radix(enc))) {
        sameFormat(id, enc);
        sameParse(coreFormat(id, enc, false), enc);
        sameParse(coreFormat(id, enc, true), enc);
      }
    }
  }

  @Test
  void formatsAsTheCoreOnRandomIds() {
    SplittableRandom rnd = new SplittableRandom(42);
    for (int enc = 0; enc < NAMES.length; enc++) {
      for (int i = 0; i < RANDOM; i++) {
        long id = rnd.nextLong() >>> rnd.nextInt(64);
        sameFormat(id, enc);
        String fixed = Snowflake.format(id, NAMES[enc]);
        assertEquals(id, Snowflake.parse(fixed, NAMES[enc]));
        assertEquals(id, Snowflake.parse(Snowflake.format(id, NAMES[enc], false), NAMES[enc]));
      }
    }
  }

  /** Every ASCII character (and a few beyond) alone, in a full-width text and at its end. */
  @Test
  void readsEveryCharacterAsTheCore() {
    for (int enc = 0; enc < NAMES.length; enc++) {
      String max = coreFormat(-1L, enc, false);
      String zeros = coreFormat(0L, enc, false);
      for (char c = 0; c < 300; c++) {
        String s = String.valueOf(c);
        sameParse(s, enc);
        sameParse(zeros.substring(1) + s, enc);
        sameParse(max.substring(0, max.length() - 1) + s, enc);
        sameParse(s + zeros.substring(1), enc);
      }
    }
  }

  /** Full-width texts around 2^64 - 1: the largest reads, the next ones are refused. */
  @Test
  void refusesAboveTheLargestAsTheCore() {
    for (int enc = 0; enc < NAMES.length; enc++) {
      String digits = digits(enc);
      String max = coreFormat(-1L, enc, false);
      for (int at = 0; at < max.length(); at++) {
        for (int d = 0; d < digits.length(); d++) {
          sameParse(max.substring(0, at) + digits.charAt(d) + max.substring(at + 1), enc);
        }
      }
      String top = String.valueOf(digits.charAt(digits.length() - 1));
      sameParse(top.repeat(max.length()), enc);
      sameParse(top.repeat(max.length() - 1), enc);
      sameParse(top.repeat(max.length() + 1), enc);
      sameParse("", enc);
    }
  }

  /**
   * Names written in the source (interned) take a shortcut to base32's and base62's own codecs: the
   * same texts, IDs and refusals as the core's, whose numbers are found by name here.
   */
  @Test
  void namesInTheSourceReadAndWriteAsTheCore() {
    int b32 = List.of(NAMES).indexOf("base32");
    int b62 = List.of(NAMES).indexOf("base62");
    SplittableRandom rnd = new SplittableRandom(11);
    List<Long> ids = new ArrayList<>(edges(32));
    ids.addAll(edges(62));
    for (int i = 0; i < 10_000; i++) {
      ids.add(rnd.nextLong() >>> rnd.nextInt(64));
    }
    for (long id : ids) {
      String t32 = coreFormat(id, b32, false);
      String t62 = coreFormat(id, b62, false);
      assertEquals(t32, Snowflake.format(id, "base32"));
      assertEquals(t62, Snowflake.format(id, "base62"));
      assertEquals(coreFormat(id, b62, true), Snowflake.format(id, "base62", false));
      assertEquals(id, Snowflake.parse(t32, "base32"));
      assertEquals(id, Snowflake.parse(t62, "base62"));
    }
    String max62 = coreFormat(-1L, b62, false);
    String above = max62.substring(0, 10) + (char) (max62.charAt(10) + 1);
    for (String text :
        new String[] {"", "0", above, "zzzzzzzzzzz", "0000000000!", "0".repeat(12)}) {
      assertEquals(
          outcome(() -> coreParse(text, b62)),
          outcome(() -> Snowflake.parse(text, "base62")),
          () -> "base62 parse of '" + text + "'");
      assertEquals(
          outcome(() -> coreParse(text, b32)),
          outcome(() -> Snowflake.parse(text, "base32")),
          () -> "base32 parse of '" + text + "'");
    }
  }

  /** Random texts, mostly of the alphabet in either case, some with foreign characters. */
  @Test
  void readsRandomTextsAsTheCore() {
    SplittableRandom rnd = new SplittableRandom(7);
    String others = "\u0000 -+_.zZ/:@[`{\u007f\u0080\u00e9\u00ff\u0100\u20ac\ud83d\ude00";
    for (int enc = 0; enc < NAMES.length; enc++) {
      String digits = digits(enc);
      int width = coreFormat(0L, enc, false).length();
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < RANDOM; i++) {
        b.setLength(0);
        int len = rnd.nextInt(width + 3);
        for (int k = 0; k < len; k++) {
          int pick = rnd.nextInt(100);
          char c =
              pick < 2
                  ? others.charAt(rnd.nextInt(others.length()))
                  : digits.charAt(rnd.nextInt(digits.length()));
          b.append(pick >= 2 && pick < 30 ? flipCase(c) : c);
        }
        sameParse(b.toString(), enc);
      }
    }
  }

  static char flipCase(char c) {
    return Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c);
  }

  @Test
  void everyEncodingHasARow() {
    for (int enc = 0; enc < NAMES.length; enc++) {
      assertNotNull(Native.encodingRow(enc), NAMES[enc]);
    }
    assertEquals(null, Native.encodingRow(NAMES.length));
    assertEquals(null, Native.encodingRow(-1));
  }
}
