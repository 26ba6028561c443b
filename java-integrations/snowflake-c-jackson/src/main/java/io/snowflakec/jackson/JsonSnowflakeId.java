package io.snowflakec.jackson;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * Marks a {@code long} or {@code Long} property holding a snowflake-c ID: with {@link
 * SnowflakeIdModule} (Jackson 3) or {@link io.snowflakec.jackson2.SnowflakeIdModule} (Jackson 2)
 * registered, it is written as a JSON string (JavaScript's numbers hold 53 bits, IDs 63) and read
 * from a string or a number.
 */
@Retention(RUNTIME)
@Target({FIELD, METHOD, PARAMETER})
public @interface JsonSnowflakeId {}
