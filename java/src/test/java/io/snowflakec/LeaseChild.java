package io.snowflakec;

/**
 * A child JVM of {@link LeaseTest}: leases a worker value from the database of its first argument
 * (layout spec and lease key after it; a database "-": the worker and the database from {@code
 * SNOWFLAKE_WORKER} and {@code SNOWFLAKE_LEASE_URL}), prints {@code worker=<value>}, and holds it
 * until its standard input ends.
 */
public final class LeaseChild {
  private LeaseChild() {}

  public static void main(String[] args) throws Exception {
    Generator.Builder b = Generator.builder().layout(args[1]).epoch(1704067200000L);
    if (!args[0].equals("-")) {
      b.node("worker", "lease").lease(args[0]);
    }
    try (Generator g = b.leaseKey(args[2]).build()) {
      long id = g.nextId();
      System.out.println("worker=" + Snowflake.decode(id, g.layout()).get("worker"));
      System.out.flush();
      while (System.in.read() >= 0) {
        // held until the parent closes our input
      }
    }
  }
}
