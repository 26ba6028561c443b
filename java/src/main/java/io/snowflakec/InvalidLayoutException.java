package io.snowflakec;

/**
 * A layout spec, preset name or epoch is not valid: the message names the problem.
 *
 * <p>Status {@value #STATUS}, {@code "InvalidLayout"} in every language.
 */
public class InvalidLayoutException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /** The core's status number of this kind. */
  public static final int STATUS = 1;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public InvalidLayoutException(String message) {
    super(STATUS, "InvalidLayout", message);
  }
}
