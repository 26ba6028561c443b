package io.snowflakec;

import java.util.List;
import java.util.Objects;

/**
 * The base of every error of the library: one subclass per error kind, the same kinds in every
 * language (C status codes, Python, Node and Java exceptions).
 *
 * <p>The kinds are the core's error statuses: the status called {@code Name} is thrown as {@code
 * NameException} ({@link #kinds()} lists them). {@link #status()} is the core's fixed status number
 * and {@link #statusName()} its name ({@code "InvalidLayout"}, {@code "ClockMovedBackwards"}, …);
 * the message says what was wrong and what to do.
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

  /**
   * Creates an exception of the kind its class names.
   *
   * @param message what was wrong and what to do
   */
  protected SnowflakeException(String message) {
    super(message);
  }

  /**
   * The error kinds, in the order of their status numbers: {@code "InvalidLayout"}, {@code
   * "InvalidArgument"}, … — each thrown as the class of its name followed by {@code Exception}.
   *
   * @return the kinds' names, from the core's status table
   */
  public static List<String> kinds() {
    return Facts.STATUSES.stream().filter(Objects::nonNull).toList();
  }

  /**
   * The error kind's name, the same in every language.
   *
   * @return for example {@code "ClockMovedBackwards"}
   */
  public String statusName() {
    Class<?> c = getClass();
    while (c.getSuperclass() != SnowflakeException.class && c != SnowflakeException.class) {
      c = c.getSuperclass();
    }
    return c.getSimpleName().replaceFirst("Exception$", "");
  }

  /**
   * The core's status number of this kind (fixed forever).
   *
   * @return the status number, or -1 for a kind the core does not have
   */
  public int status() {
    return Facts.STATUSES.indexOf(statusName());
  }
}
