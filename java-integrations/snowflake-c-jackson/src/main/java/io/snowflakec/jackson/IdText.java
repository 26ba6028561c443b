package io.snowflakec.jackson;

import io.snowflakec.Snowflake;
import java.util.Objects;

/**
 * The string form of IDs that both modules use, through the core's own format and parse: {@code
 * dec} is written as the plain decimal, the other encodings at their fixed width (their strings
 * sort as the IDs do); either width is read.
 */
public final class IdText {
  /** The default: the decimal digits of the ID, as JSON numbers print. */
  public static final String DECIMAL = "dec";

  private final String encoding;

  /**
   * The string form of an encoding of {@link Snowflake#format(long, String)}.
   *
   * @param encoding {@code dec}, {@code hex}, {@code base32}, {@code base36}, {@code base58} or
   *     {@code base62}
   * @throws io.snowflakec.InvalidArgumentException for an unknown encoding
   */
  public IdText(String encoding) {
    this.encoding = Objects.requireNonNull(encoding, "encoding");
    Snowflake.format(0, encoding);
  }

  /**
   * The encoding's name.
   *
   * @return the name
   */
  public String encoding() {
    return encoding;
  }

  /**
   * An ID as text.
   *
   * @param id the ID
   * @return its text
   */
  public String format(long id) {
    return Snowflake.format(id, encoding); // the encoding's default form
  }

  /**
   * The ID of a text.
   *
   * @param text the text, fixed width or shortest
   * @return the ID
   * @throws io.snowflakec.InvalidArgumentException when it is not an ID of the encoding
   */
  public long parse(String text) {
    return Snowflake.parse(text, encoding);
  }
}
