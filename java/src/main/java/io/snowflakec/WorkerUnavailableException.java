package io.snowflakec;

/**
 * The node values are held by another live generator — in this JVM or another process of the host,
 * found by the guard's host-wide claim or the state directory's lock — or the pool in the state
 * directory is full. The message names the value, the holder's pid (and its uid when it runs as
 * another user), the claim or lock file, and what to do.
 *
 * <p>{@code "WorkerUnavailable"} in every language.
 */
public class WorkerUnavailableException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public WorkerUnavailableException(String message) {
    super(message);
  }
}
