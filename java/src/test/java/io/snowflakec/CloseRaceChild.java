package io.snowflakec;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A separate JVM for {@link CloseRaceTest}, run with freed memory overwritten: calls that wait for
 * the clock while collections run, on a generator that only the waiting call reaches, and on one
 * closed by another thread meanwhile. Prints each call's outcome. Argument: the run's epoch (ms).
 */
public final class CloseRaceChild {
  static long epoch;

  static Generator waiting(long node) {
    Generator g =
        Generator.builder()
            .layout(Layout.parse("time:41@1ms,worker:10,seq:12", epoch))
            .node("worker", node)
            .rollback("wait")
            .option("maxWait", "10s")
            .build();
    g.nextIdAt(g.nowUs() + 1_000_000);
    return g;
  }

  /** Runs `call` on another thread, collecting garbage until it ends; its outcome. */
  static String collectingWhile(java.util.function.Supplier<String> call) throws Exception {
    AtomicReference<String> outcome = new AtomicReference<>();
    Thread t =
        new Thread(
            () -> {
              try {
                outcome.set(call.get());
              } catch (SnowflakeException e) {
                outcome.set(e.getClass().getSimpleName() + ": " + e.getMessage());
              }
            });
    t.start();
    while (t.isAlive()) {
      System.gc();
      t.join(20);
    }
    return outcome.get();
  }

  public static void main(String[] args) throws Exception {
    epoch = Long.parseLong(args[0]);
    // The waiting call holds the only reference: the Cleaner must not free the generator under it.
    String unreachable =
        collectingWhile(
            () -> {
              Generator g = waiting(3);
              long id = g.nextId();
              return "issued worker=" + Snowflake.decode(id, g.layout()).get("worker");
            });
    System.out.println("unreachable: " + unreachable);
    // Closed by another thread while the call waits; collections run while the call goes on,
    // which must find the generator closed, not freed.
    String closed =
        collectingWhile(
            () -> {
              Generator g = waiting(4);
              new Thread(
                      () -> {
                        sleep(100);
                        g.close();
                      })
                  .start();
              return "issued " + g.nextId();
            });
    System.out.println("closed: " + closed);
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
