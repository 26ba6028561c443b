/**
 * 64-bit, time-ordered unique IDs (the Twitter Snowflake family): the Java binding of the
 * snowflake-c core.
 *
 * <ul>
 *   <li>{@link io.snowflakec.Generator} issues IDs: lock-free, thread-safe, one per process.
 *   <li>{@link io.snowflakec.Layout} describes how an ID is packed: a preset or a spec and an
 *       epoch.
 *   <li>{@link io.snowflakec.Snowflake} decodes, encodes and gives the ID range of a time interval;
 *       {@link io.snowflakec.Parts#toJson()} is the canonical JSON shared by every language.
 *   <li>{@link io.snowflakec.SnowflakeException} and its subclasses are the error kinds.
 * </ul>
 *
 * <pre>{@code
 * try (Generator g = Generator.builder().preset("twitter").node("datacenter", 1).node("worker", 3).build()) {
 *     long id = g.nextId();
 *     System.out.println(Snowflake.decode(id, g.layout()).toJson());
 * }
 * }</pre>
 *
 * <p>The jar carries its JNI library and loads it by itself; the system property {@code
 * io.snowflakec.native.path} names a library file to load instead.
 */
package io.snowflakec;
