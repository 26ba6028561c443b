package io.snowflakec;

/**
 * The generator was created before a {@code fork()}; with a static node value the child must create
 * its own generator with another value.
 *
 * <p>{@code "GeneratorForked"} in every language.
 */
public class GeneratorForkedException extends SnowflakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was wrong and what to do
   */
  public GeneratorForkedException(String message) {
    super(message);
  }
}
