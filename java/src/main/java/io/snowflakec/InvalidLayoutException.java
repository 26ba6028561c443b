package io.snowflakec;

/**
 * A layout spec, preset name or epoch is not valid: the message names the problem.
 *
 * <p>{@code "InvalidLayout"} in every language.
 */
public class InvalidLayoutException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public InvalidLayoutException(String message) {
    super(message);
  }
}
