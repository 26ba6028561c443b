package io.snowflakec;

/**
 * The layout's time field has run out (its epoch's life is over), or an ID no longer fits a signed
 * {@code long}.
 *
 * <p>{@code "TimeExhausted"} in every language.
 */
public class TimeExhaustedException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public TimeExhaustedException(String message) {
    super(message);
  }
}
