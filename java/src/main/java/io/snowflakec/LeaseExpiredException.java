package io.snowflakec;

/**
 * A leased node value may have expired: no renewal reached the database in time, or another holder
 * took the value. The generator issues no ID past its lease's deadline; it resumes by itself once a
 * renewal succeeds.
 *
 * <p>{@code "LeaseExpired"} in every language.
 */
public class LeaseExpiredException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public LeaseExpiredException(String message) {
    super(message);
  }
}
