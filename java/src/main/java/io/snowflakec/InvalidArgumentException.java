package io.snowflakec;

/**
 * A value is not valid: a node value missing or out of range, an option out of range, an ID that
 * does not fit the layout or a signed {@code long}, a field that does not fit.
 *
 * <p>{@code "InvalidArgument"} in every language.
 */
public class InvalidArgumentException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public InvalidArgumentException(String message) {
    super(message);
  }
}
