package io.snowflakec;

/**
 * The state directory or a state file cannot be read or written, or holds something unexpected; the
 * message names the path.
 *
 * <p>{@code "StateError"} in every language.
 */
public class StateErrorException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public StateErrorException(String message) {
    super(message);
  }
}
