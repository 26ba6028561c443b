package io.snowflakec;

/**
 * The wall clock went backwards further than the rollback strategy allows; the message says by how
 * much.
 *
 * <p>{@code "ClockMovedBackwards"} in every language.
 */
public class ClockMovedBackwardsException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public ClockMovedBackwardsException(String message) {
    super(message);
  }
}
