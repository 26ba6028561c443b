package io.snowflakec;

/**
 * The core could not allocate memory (creating a generator, reading a state file).
 *
 * <p>{@code "OutOfMemory"} in every language.
 */
public class OutOfMemoryException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public OutOfMemoryException(String message) {
    super(message);
  }
}
