package io.snowflakec;

/**
 * The node value is held by another live process, or the pool in the state directory is full.
 *
 * <p>Status {@value #STATUS}, {@code "WorkerUnavailable"} in every language.
 */
public class WorkerUnavailableException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /** The core's status number of this kind. */
  public static final int STATUS = 6;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public WorkerUnavailableException(String message) {
    super(STATUS, "WorkerUnavailable", message);
  }
}
