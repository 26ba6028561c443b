package io.snowflakec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The string forms of {@link Snowflake#format(long, String, boolean)} and {@link
 * Snowflake#parse(String, String)} in Java, without a native call, by the rows the core publishes
 * ({@code sfc_encoding_at}): each encoding's digits, radix, fixed width, default form and the value
 * of every byte, read once. A native call costs more than the whole work here, and a {@code String}
 * crossing it more again.
 *
 * <p>Parsing reads valid text only: anything else (empty, too long, a character outside the
 * alphabet or beyond ASCII, a NUL, a value above 2^64 - 1) goes to the core, whose exception names
 * the problem in its own words.
 *
 * <p>Both take two digits per step, through a table of the digit pairs below radix^2. A radix that
 * is a power of two takes each pair by a shift of its own, so that no pair waits for another; any
 * other has its chain of dependent multiplications halved.
 *
 * <p>The two forms most used, base32 at its fixed width and base62, have code of their own besides:
 * their digits and values as static final arrays and their radix and width as constants, taken only
 * when the core's row has the expected radix and width. The hot methods stay small and every
 * refusal leaves through one cold call, so that the compiler inlines them into the caller.
 */
final class IdText {
  /** The encodings' names by number. */
  private static final String[] NAMES = Native.tableNames(Native.TABLE_ENCODINGS);

  /** The rows by encoding number. */
  private static final IdText[] ROWS = load();

  /** The core's number of base32 (Crockford, 13 digits of 5 bits), or -1 if its row differs. */
  static final int BASE32 = special("base32", 32, 13);

  /** The core's number of base62 (11 digits), or -1 if its row differs. */
  static final int BASE62 = special("base62", 62, 11);

  private static final byte[] BASE32_DIGITS = digitBytes(BASE32);

  /** Two base32 digits by their 10 bits, as the little-endian 16 bits {@link #SHORT} stores. */
  private static final short[] BASE32_PAIRS = pairs(BASE32_DIGITS);

  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final byte[] BASE62_VALUES = values(BASE62);

  /** 62^5 and 62^10: an 11-digit text is its first digit * 62^10 + two 5-digit halves. */
  private static final int POW62_5 = 62 * 62 * 62 * 62 * 62;

  private static final long POW62_10 = (long) POW62_5 * POW62_5;

  /** The largest first digit of an 11-digit text: 2^64 - 1 = 21 * 62^10 + r. */
  private static final int FIRST62_LIMIT = (int) Long.divideUnsigned(-1L, POW62_10);

  private final int encoding;

  /** The digits as chars: {@code new String(char[])} is the cheapest way to a Latin-1 string. */
  private final char[] digits;

  /** The core's value of each ASCII byte: its digit, or -1. */
  private final byte[] values;

  private final int radix;
  private final int width;

  /** The row's {@code fixed_by_default}: its default form is the fixed width, else the shortest. */
  private final boolean fixedByDefault;

  /**
   * log2(radix) when the radix is a power of two and the fixed width ceil(64 / log2(radix)), else
   * 0.
   */
  private final int bits;

  /** A full-width text's first digit is below this (power of two radices). */
  private final int firstLimit;

  /** radix^2, for two digits per step (in every radix). */
  private final int square;

  /** The high and the low digit of each number below radix^2. */
  private final char[] high;

  private final char[] low;

  /**
   * v / square = unsignedMultiplyHigh(v, pairMagic) &gt;&gt;&gt; pairShift for 0 &lt;= v &lt; 2^63
   * (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994): a
   * multiplication where dividing by a number read from a field would be a division.
   */
  private final long pairMagic;

  private final int pairShift;

  /** 2^64 - 1 = lastQuotient * radix + lastRemainder: the bound of a full-width text. */
  private final long lastQuotient;

  private final long lastRemainder;

  private IdText(
      int encoding, byte[] digits, byte[] values, int radix, int width, boolean fixedByDefault) {
    this.encoding = encoding;
    this.digits = new char[radix];
    for (int i = 0; i < radix; i++) {
      this.digits[i] = (char) (digits[i] & 0xff);
    }
    this.values = new byte[128];
    System.arraycopy(values, 0, this.values, 0, 128);
    this.radix = radix;
    this.width = width;
    this.fixedByDefault = fixedByDefault;
    int log = Integer.numberOfTrailingZeros(radix);
    this.bits = Integer.bitCount(radix) == 1 && width == (64 + log - 1) / log ? log : 0;
    this.firstLimit = bits == 0 ? 0 : 1 << (64 - bits * (width - 1));
    this.square = radix * radix;
    this.high = new char[square];
    this.low = new char[square];
    for (int x = 0; x < square; x++) {
      high[x] = this.digits[x / radix];
      low[x] = this.digits[x % radix];
    }
    // l = ceil(log2 square); pairMagic = ceil(2^(63 + l) / square) < 2^64.
    int l = 32 - Integer.numberOfLeadingZeros(square - 1);
    BigInteger d = BigInteger.valueOf(square);
    this.pairMagic =
        BigInteger.ONE.shiftLeft(63 + l).add(d).subtract(BigInteger.ONE).divide(d).longValue();
    this.pairShift = l - 1;
    this.lastQuotient = Long.divideUnsigned(-1L, radix);
    this.lastRemainder = Long.remainderUnsigned(-1L, radix);
  }

  private static IdText[] load() {
    int n = 0;
    while (Native.encodingRow(n) != null) {
      n++;
    }
    IdText[] rows = new IdText[n];
    for (int i = 0; i < n; i++) {
      Object[] row = Native.encodingRow(i);
      int[] numbers = (int[]) row[2];
      rows[i] =
          new IdText(i, (byte[]) row[0], (byte[]) row[1], numbers[0], numbers[1], numbers[2] != 0);
    }
    return rows;
  }

  /** The number of the encoding of this name when its row has this radix and width, else -1. */
  private static int special(String name, int radix, int width) {
    int n = Arrays.asList(NAMES).indexOf(name);
    return n >= 0 && n < ROWS.length && ROWS[n].radix == radix && ROWS[n].width == width ? n : -1;
  }

  /** A row's digits as Latin-1 bytes (none for -1). */
  private static byte[] digitBytes(int encoding) {
    byte[] out = new byte[encoding < 0 ? 0 : ROWS[encoding].radix];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) ROWS[encoding].digits[i];
    }
    return out;
  }

  /** Every pair of digits (the first in the high 5 bits) as two bytes, the first at the lower. */
  private static short[] pairs(byte[] digits) {
    short[] out = new short[digits.length == 32 ? 1024 : 0];
    for (int i = 0; i < out.length; i++) {
      out[i] = (short) ((digits[i >>> 5] & 0xff) | (digits[i & 31] & 0xff) << 8);
    }
    return out;
  }

  /** A row's value of each ASCII byte (all -1 for -1). */
  private static byte[] values(int encoding) {
    if (encoding < 0) {
      byte[] none = new byte[128];
      Arrays.fill(none, (byte) -1);
      return none;
    }
    return ROWS[encoding].values.clone();
  }

  /** The core's answer to a text the readers here do not take: its ID or its exception. */
  private static long byTheCore(String text, int encoding) {
    return Native.bits(Native.call(Native.PARSE_ID, text, NAMES[encoding]));
  }

  /**
   * Whether an encoding's default form is the shortest, by its row ({@code fixed_by_default} unset:
   * dec, whose default is the plain number that JSON prints).
   *
   * @param encoding a valid encoding number
   * @return true for the shortest form by default, false for the fixed width
   */
  static boolean shortestByDefault(int encoding) {
    return encoding < ROWS.length && !ROWS[encoding].fixedByDefault;
  }

  /**
   * An ID as text.
   *
   * @param id the ID, its 64 bits read unsigned
   * @param encoding a valid encoding number
   * @param shortest without the left padding
   * @return the core's text for it
   */
  static String format(long id, int encoding, boolean shortest) {
    if (encoding == BASE32 && !shortest) {
      return base32(id);
    }
    return formatByRow(id, encoding, shortest);
  }

  /**
   * base32 at its fixed width: 13 digits of 5 bits, the first alone and the others in pairs of 10
   * bits, each pair one 16-bit store of two Latin-1 digits (no loop, no dependency between digits).
   */
  @SuppressWarnings("deprecation") // String(byte[], int, int, int): one copy, no charset lookup
  private static String base32(long v) {
    short[] p = BASE32_PAIRS;
    byte[] out = new byte[13];
    out[0] = BASE32_DIGITS[(int) (v >>> 60)];
    SHORT.set(out, 1, p[(int) (v >>> 50) & 1023]);
    SHORT.set(out, 3, p[(int) (v >>> 40) & 1023]);
    SHORT.set(out, 5, p[(int) (v >>> 30) & 1023]);
    SHORT.set(out, 7, p[(int) (v >>> 20) & 1023]);
    SHORT.set(out, 9, p[(int) (v >>> 10) & 1023]);
    SHORT.set(out, 11, p[(int) v & 1023]);
    return new String(out, 0, 0, 13);
  }

  private static String formatByRow(long id, int encoding, boolean shortest) {
    if (encoding >= ROWS.length) {
      return Native.text(
          Native.call(Native.FORMAT_ID, Long.toUnsignedString(id), NAMES[encoding], !shortest));
    }
    IdText row = ROWS[encoding];
    if (row.bits != 0) {
      // A constant number of bits lets the compiler unroll the loop of shifts.
      switch (row.bits) {
        case 4:
          return row.writeBits(id, shortest, 4);
        case 5:
          return shortest ? row.writeBits(id, true, 5) : row.writeBits5(id);
        default:
          return row.writeBits(id, shortest, row.bits);
      }
    }
    return row.writeDigits(id, shortest);
  }

  /**
   * The fixed width of 5-bit digits (base32's 13), each digit by a constant shift: no loop, no
   * dependency between digits.
   */
  private String writeBits5(long v) {
    char[] d = digits;
    char[] out = new char[13];
    out[0] = d[(int) (v >>> 60)];
    out[1] = d[(int) (v >>> 55) & 31];
    out[2] = d[(int) (v >>> 50) & 31];
    out[3] = d[(int) (v >>> 45) & 31];
    out[4] = d[(int) (v >>> 40) & 31];
    out[5] = d[(int) (v >>> 35) & 31];
    out[6] = d[(int) (v >>> 30) & 31];
    out[7] = d[(int) (v >>> 25) & 31];
    out[8] = d[(int) (v >>> 20) & 31];
    out[9] = d[(int) (v >>> 15) & 31];
    out[10] = d[(int) (v >>> 10) & 31];
    out[11] = d[(int) (v >>> 5) & 31];
    out[12] = d[(int) v & 31];
    return new String(out);
  }

  /** Digits of b bits, two per step from the right, each pair by its own shift. */
  private String writeBits(long v, boolean shortest, int b) {
    int n = (64 + b - 1) / b; // the fixed width
    if (shortest) {
      n = Math.max(1, (64 - Long.numberOfLeadingZeros(v) + b - 1) / b);
    }
    char[] out = new char[n];
    char[] hi = high;
    char[] lo = low;
    int pairMask = (1 << (2 * b)) - 1;
    int i = n - 1;
    int shift = 0;
    for (; i > 0; i -= 2, shift += 2 * b) {
      int x = (int) (v >>> shift) & pairMask;
      out[i] = lo[x];
      out[i - 1] = hi[x];
    }
    if (i == 0) { // an odd count: the first digit alone (shift = b * (n - 1) < 64)
      out[0] = digits[(int) (v >>> shift) & (radix - 1)];
    }
    return new String(out);
  }

  /** v / square for 0 &lt;= v &lt; 2^63. */
  private long pairQuotient(long v) {
    return (Math.multiplyHigh(v, pairMagic) + (v & (pairMagic >> 63))) >>> pairShift;
  }

  /** Two digits per step from the right; the first step divides unsigned. */
  private String writeDigits(long v, boolean shortest) {
    char[] out = new char[width];
    int p = width;
    if (v < 0) {
      long q = pairQuotient(v >>> 1) << 1;
      long rest = v - q * square;
      if (rest >= square) {
        q++;
        rest -= square;
      }
      out[--p] = low[(int) rest];
      out[--p] = high[(int) rest];
      v = q;
    }
    while (v >= square) {
      long q = pairQuotient(v);
      int x = (int) (v - q * square);
      out[--p] = low[x];
      out[--p] = high[x];
      v = q;
    }
    // The leading one or two digits; none left when an unsigned step took them.
    if (v != 0 || p == width) {
      out[--p] = low[(int) v];
      if (v >= radix) {
        out[--p] = high[(int) v];
      }
    }
    if (shortest) {
      return new String(out, p, width - p);
    }
    char zero = digits[0];
    while (p > 0) {
      out[--p] = zero;
    }
    return new String(out);
  }

  /**
   * The ID a text stands for.
   *
   * @param text the text, not null
   * @param encoding a valid encoding number
   * @return the ID, its 64 bits read unsigned
   * @throws InvalidArgumentException from the core, for text that is no ID
   */
  static long parse(String text, int encoding) {
    if (encoding == BASE62) {
      return text.length() == 11 ? base62Full(text) : base62Short(text);
    }
    return parseByRow(text, encoding);
  }

  /**
   * An 11-digit base62 text: its first digit times 62^10 plus two independent 5-digit halves (each
   * below 2^31), the characters and values checked once at the end; exact at 2^64 - 1.
   */
  private static long base62Full(String text) {
    byte[] t = BASE62_VALUES;
    int c = text.charAt(0);
    int chars = c;
    int first = t[c & 127];
    int seen = first;
    int high = 0;
    int low = 0;
    for (int i = 1; i <= 5; i++) {
      int c1 = text.charAt(i);
      int c2 = text.charAt(i + 5);
      int d1 = t[c1 & 127];
      int d2 = t[c2 & 127];
      chars |= c1 | c2;
      seen |= d1 | d2;
      high = high * 62 + d1;
      low = low * 62 + d2;
    }
    if (chars >= 128 || seen < 0 || first > FIRST62_LIMIT) {
      return byTheCore(text, BASE62);
    }
    long top = first * POW62_10;
    long v = top + ((long) high * POW62_5 + low);
    // top <= 21 * 62^10 < 2^64: the sum passes 2^64 - 1 exactly when it wraps below top.
    if (Long.compareUnsigned(v, top) < 0) {
      return byTheCore(text, BASE62);
    }
    return v;
  }

  /** A base62 text of 1 to 10 digits (below 62^10 &lt; 2^63: no overflow), or any other length. */
  private static long base62Short(String text) {
    int len = text.length();
    if (len == 0 || len > 11) {
      return byTheCore(text, BASE62);
    }
    byte[] t = BASE62_VALUES;
    int chars = 0;
    int seen = 0;
    long v = 0;
    for (int i = 0; i < len; i++) {
      int c = text.charAt(i);
      int d = t[c & 127];
      chars |= c;
      seen |= d;
      v = v * 62 + d;
    }
    if (chars >= 128 || seen < 0) {
      return byTheCore(text, BASE62);
    }
    return v;
  }

  private static long parseByRow(String text, int encoding) {
    if (encoding >= ROWS.length) {
      return byTheCore(text, encoding);
    }
    IdText row = ROWS[encoding];
    if (row.bits != 0) {
      switch (row.bits) {
        case 4:
          return row.readBits(text, 4);
        case 5:
          return row.readBits(text, 5);
        default:
          return row.readBits(text, row.bits);
      }
    }
    return row.readDigits(text);
  }

  private long readBits(String text, int b) {
    int len = text.length();
    if (len == 0 || len > width) {
      return byTheCore(text, encoding);
    }
    byte[] vals = values;
    // A full width holds 2^64 - 1 when its first digit is below firstLimit.
    int c = text.charAt(0);
    int d;
    if (c >= 128 || (d = vals[c]) < 0 || (len == width && d >= firstLimit)) {
      return byTheCore(text, encoding);
    }
    long v = d;
    for (int i = 1; i < len; i++) {
      c = text.charAt(i);
      if (c >= 128 || (d = vals[c]) < 0) {
        return byTheCore(text, encoding);
      }
      v = (v << b) | d;
    }
    return v;
  }

  /** Two digits per step: the chain of dependent multiplications is half as long. */
  private long readDigits(String text) {
    int len = text.length();
    if (len == 0 || len > width) {
      return byTheCore(text, encoding);
    }
    byte[] vals = values;
    // Fewer digits than the width never pass 2^64 - 1; at the width, the last one may.
    int last = len == width ? len - 1 : len;
    long v = 0;
    int i = 0;
    int c;
    int d;
    if ((last & 1) != 0) {
      c = text.charAt(0);
      if (c >= 128 || (d = vals[c]) < 0) {
        return byTheCore(text, encoding);
      }
      v = d;
      i = 1;
    }
    // Checked once after the loop: any character beyond ASCII, or any digit -1 (outside the
    // alphabet), sends the text to the core.
    int chars = 0;
    int digitsSeen = 0;
    for (; i < last; i += 2) {
      c = text.charAt(i);
      int c2 = text.charAt(i + 1);
      d = vals[c & 127];
      int d2 = vals[c2 & 127];
      chars |= c | c2;
      digitsSeen |= d | d2;
      v = v * square + (d * radix + d2);
    }
    if (chars >= 128 || digitsSeen < 0) {
      return byTheCore(text, encoding);
    }
    if (last < len) {
      c = text.charAt(last);
      if (c >= 128
          || (d = vals[c]) < 0
          || Long.compareUnsigned(v, lastQuotient) > 0
          || (v == lastQuotient && d > lastRemainder)) {
        return byTheCore(text, encoding);
      }
      v = v * radix + d;
    }
    return v;
  }
}
