package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * The string forms: {@link Snowflake#format}, {@link Snowflake#parse} and decode with an encoding.
 * The values are in the shared vectors (encodings.json, run by VectorTest); this checks the Java
 * side: unsigned longs, nulls and errors.
 */
class EncodingTest {
  static final String[] ENCODINGS = {"dec", "hex", "base32", "base36", "base58", "base62"};
  static final long DISCORD_ID = 175928847299117063L;

  static InvalidArgumentException invalid(
      String part, org.junit.jupiter.api.function.Executable f) {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, f);
    assertEquals("InvalidArgument", e.statusName());
    assertTrue(e.getMessage().contains(part), "'" + part + "' is not in: " + e.getMessage());
    return e;
  }

  @Test
  void fixedByDefaultShortestOnRequest() {
    assertEquals("0Czks0tP37X", Snowflake.format(DISCORD_ID, "base62"));
    assertEquals("Czks0tP37X", Snowflake.format(DISCORD_ID, "base62", false));
    assertEquals("00000000000000ff", Snowflake.format(255L, "hex"));
    assertEquals("ff", Snowflake.format(255L, "hex", false));
    assertEquals("00000000000", Snowflake.format(0L, "base62"));
    assertEquals("0", Snowflake.format(0L, "base62", false));
  }

  @Test
  void decIsThePlainNumberByDefaultAndPaddedOnRequest() {
    Layout discord = Layout.preset("discord");
    String json = Snowflake.decode(DISCORD_ID, discord).toJson();
    assertEquals("175928847299117063", Snowflake.format(DISCORD_ID, "dec"));
    assertTrue(json.contains("\"id\":\"" + Snowflake.format(DISCORD_ID, "dec") + "\""), json);
    assertEquals("00175928847299117063", Snowflake.format(DISCORD_ID, "dec", true));
    assertEquals("175928847299117063", Snowflake.format(DISCORD_ID, "dec", false));
    assertEquals("0", Snowflake.format(0L, "dec"));
    assertEquals("00000000000000000000", Snowflake.format(0L, "dec", true));
    assertEquals("18446744073709551615", Snowflake.format(-1L, "dec"));
    assertEquals("18446744073709551615", Snowflake.format(-1L, "dec", true));
    assertEquals(DISCORD_ID, Snowflake.parse("00175928847299117063", "dec"));
  }

  @Test
  void longsAreReadUnsigned() {
    assertEquals("FZZZZZZZZZZZZ", Snowflake.format(-1L, "base32"));
    assertEquals("ffffffffffffffff", Snowflake.format(-1L, "hex"));
    assertEquals(-1L, Snowflake.parse("LygHa16AHYF", "base62"));
    assertEquals(Long.MIN_VALUE, Snowflake.parse("AzL8n0Y58m8", "base62"));
    assertEquals(
        Long.toUnsignedString(Long.MIN_VALUE), Snowflake.format(Long.MIN_VALUE, "dec", false));
  }

  @Test
  void decodeTakesAnEncodedId() {
    Layout discord = Layout.preset("discord");
    String want = Snowflake.decode(DISCORD_ID, discord).toJson();
    for (String enc : ENCODINGS) {
      assertEquals(
          want, Snowflake.decode(Snowflake.format(DISCORD_ID, enc), enc, discord).toJson());
    }
    invalid("'z' at position 2", () -> Snowflake.decode("0Czks0tP37X", "hex", discord));
    invalid("signed Java long", () -> Snowflake.decode("ffffffffffffffff", "hex", discord));
  }

  @Test
  void badInputIsNamed() {
    invalid("'-' at position 6", () -> Snowflake.parse("0Czks0-P37X", "base62"));
    invalid("NUL byte at position 4", () -> Snowflake.parse("0Czk\u0000", "base62"));
    invalid("2^64 - 1", () -> Snowflake.parse("zzzzzzzzzzz", "base62"));
    invalid("at most 11", () -> Snowflake.parse("000000000000", "base62"));
    invalid("empty", () -> Snowflake.parse("", "base62"));
    invalid("unknown encoding 'base64'", () -> Snowflake.format(1L, "base64"));
    invalid("unknown encoding 'Hex'", () -> Snowflake.parse("1", "Hex"));
    invalid("NUL byte", () -> Snowflake.format(1L, "hex\u0000"));
    assertThrows(InvalidArgumentException.class, () -> Snowflake.parse(null, "hex"));
    assertThrows(InvalidArgumentException.class, () -> Snowflake.format(1L, null));
  }

  @Test
  void fixedStringsSortAsTheIds() {
    long[] ids = new long[100_000];
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    for (int i = 0; i < ids.length; i++) {
      ids[i] = rnd.nextLong() >>> rnd.nextInt(64);
    }
    long[] sorted = ids.clone();
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] ^= Long.MIN_VALUE; // unsigned order by signed sort
    }
    Arrays.sort(sorted);
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] ^= Long.MIN_VALUE;
    }
    for (String enc : ENCODINGS) {
      String[] texts = new String[ids.length];
      for (int i = 0; i < ids.length; i++) {
        texts[i] = Snowflake.format(ids[i], enc, true);
      }
      Arrays.sort(texts);
      long[] back = new long[texts.length];
      for (int i = 0; i < texts.length; i++) {
        back[i] = Snowflake.parse(texts[i], enc);
      }
      assertArrayEquals(sorted, back, enc);
    }
  }
}
