package io.snowflakec;

/**
 * The base of every error of the library: one subclass per error kind, the same kinds in every
 * language (C status codes, Python, Node and Java exceptions).
 *
 * <p>{@link #status()} is the core's fixed status number and {@link #statusName()} its name ({@code
 * "InvalidLayout"}, {@code "ClockMovedBackwards"}, …); the message says what was wrong and what to
 * do.
 *
 * <pre>{@code
 * try {
 *     Layout.parse("seq:12,time:41", 0L);
 * } catch (InvalidLayoutException e) {
 *     System.err.println(e.statusName() + ": " + e.getMessage());
 * }
 * }</pre>
 */
public class SnowflakeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String statusName;

  /**
   * Creates an exception of the given kind.
   *
   * @param status the core's status number
   * @param statusName the status name, e.g. {@code "InvalidArgument"}
   * @param message what was wrong and what to do
   */
  protected SnowflakeException(int status, String statusName, String message) {
    super(message);
    this.status = status;
    this.statusName = statusName;
  }

  /**
   * The core's status number (fixed forever: 1 InvalidLayout … 7 StateError).
   *
   * @return the status number
   */
  public int status() {
    return status;
  }

  /**
   * The error kind's name, the same in every language.
   *
   * @return for example {@code "ClockMovedBackwards"}
   */
  public String statusName() {
    return statusName;
  }

  /**
   * The exception for a status of the core; called by the JNI glue.
   *
   * @param status the core's status number
   * @param statusName its name
   * @param message the core's message
   * @return the subclass for that kind of error
   */
  static SnowflakeException fromStatus(int status, String statusName, String message) {
    switch (status) {
      case InvalidLayoutException.STATUS:
        return new InvalidLayoutException(message);
      case InvalidArgumentException.STATUS:
        return new InvalidArgumentException(message);
      case ClockMovedBackwardsException.STATUS:
        return new ClockMovedBackwardsException(message);
      case TimeExhaustedException.STATUS:
        return new TimeExhaustedException(message);
      case GeneratorForkedException.STATUS:
        return new GeneratorForkedException(message);
      case WorkerUnavailableException.STATUS:
        return new WorkerUnavailableException(message);
      case StateErrorException.STATUS:
        return new StateErrorException(message);
      default:
        return new SnowflakeException(status, statusName, message);
    }
  }
}
