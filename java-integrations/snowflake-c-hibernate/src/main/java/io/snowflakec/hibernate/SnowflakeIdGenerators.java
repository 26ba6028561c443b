package io.snowflakec.hibernate;

import io.snowflakec.Generator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The generators that {@link SnowflakeId} identifiers draw from, by name. An application builds its
 * {@link Generator} once (its node value is its own) and registers it before the first insert; it
 * stays the application's: closing it is the application's business, after {@link
 * #unregister(String, Generator)}.
 */
public final class SnowflakeIdGenerators {
  /** The name of the default generator, the one {@code @SnowflakeId} draws from. */
  public static final String DEFAULT = "";

  private static final Map<String, Generator> GENERATORS = new ConcurrentHashMap<>();

  private SnowflakeIdGenerators() {}

  /**
   * Registers the default generator.
   *
   * @param generator the generator
   */
  public static void register(Generator generator) {
    register(DEFAULT, generator);
  }

  /**
   * Registers a generator under a name, in place of the one registered there before.
   *
   * @param name the name that {@link SnowflakeId#generator()} gives
   * @param generator the generator
   */
  public static void register(String name, Generator generator) {
    GENERATORS.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(generator, "g"));
  }

  /**
   * Removes a name's generator if it is still the given one.
   *
   * @param name the name
   * @param generator the generator registered under it
   * @return true when it was removed
   */
  public static boolean unregister(String name, Generator generator) {
    return GENERATORS.remove(name, generator);
  }

  /**
   * The generator registered under a name.
   *
   * @param name the name
   * @return the generator
   * @throws IllegalStateException when none is registered there
   */
  public static Generator get(String name) {
    Generator generator = GENERATORS.get(name);
    if (generator == null) {
      throw new IllegalStateException(
          "no snowflake-c Generator is registered"
              + (name.isEmpty() ? "" : " under the name \"" + name + "\"")
              + ": call SnowflakeIdGenerators.register(...) before the first insert (the Spring"
              + " Boot starter does it for its bean)");
    }
    return generator;
  }
}
