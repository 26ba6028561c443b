package io.snowflakec;

/**
 * A separate JVM for {@link MultiJvmTest}: a generator whose node value comes from the environment
 * ({@code SNOWFLAKE_WORKER}).
 */
public final class EnvProbe {
  public static void main(String[] args) {
    // The guard off: the default preset's values are common on a machine.
    try (Generator g = Generator.builder().preset("default").guard(false).build()) {
      Stats s = g.stats();
      long id = g.nextId();
      System.out.println(
          "worker="
              + s.nodes().get("worker")
              + " source="
              + s.nodeSources().get("worker")
              + " decoded="
              + Snowflake.decode(id, g.layout()).get("worker"));
    } catch (SnowflakeException e) {
      System.out.println(e.statusName() + ": " + e.getMessage());
      System.exit(3);
    }
  }
}
