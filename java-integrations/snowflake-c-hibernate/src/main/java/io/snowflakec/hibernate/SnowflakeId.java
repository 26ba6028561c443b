package io.snowflakec.hibernate;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * Marks a {@code long} or {@code Long} identifier whose value is the next ID of a snowflake-c
 * {@link io.snowflakec.Generator}, taken before the insert:
 *
 * <pre>{@code
 * @Id @SnowflakeId private Long id;
 * }</pre>
 *
 * <p>The generator is the one registered under {@link #generator()} with {@link
 * SnowflakeIdGenerators#register(String, io.snowflakec.Generator)} (the Spring Boot starter
 * registers its bean under the default name).
 */
@IdGeneratorType(SnowflakeIdentifierGenerator.class)
@Retention(RUNTIME)
@Target({FIELD, METHOD})
public @interface SnowflakeId {
  /**
   * The name of the registered generator to draw from.
   *
   * @return the name; empty for the default one
   */
  String generator() default "";
}
