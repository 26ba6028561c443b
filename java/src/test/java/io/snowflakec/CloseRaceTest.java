package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * close() on another thread while a call of the same generator waits for the clock: the call ends
 * at once with the closed error, and the native generator, only closed, stays until the Cleaner
 * frees it once no call can reach it. Through whichever calls the JVM makes (JNI, or FFM on 22+).
 */
class CloseRaceTest {
  static final String CLOSED = "the generator is closed: create a new one";

  /** A generator whose next live call waits about 3 s: an ID issued that far ahead of the clock. */
  static Generator waiting(long node) {
    Generator g =
        Generator.builder()
            .layout(RunEpoch.layout("time:41@1ms,worker:10,seq:12"))
            .node("worker", node)
            .rollback("wait")
            .option("maxWait", "10s")
            .build();
    g.nextIdAt(g.nowUs() + 3_000_000);
    return g;
  }

  /**
   * What `call` threw (or "issued") when another thread closed `g` 100 ms into it: the closed
   * error, where without the close the 3 s wait would have ended with IDs.
   */
  static String closedWhileWaiting(Generator g, Runnable call) throws Exception {
    AtomicReference<String> outcome = new AtomicReference<>("issued");
    Thread t =
        new Thread(
            () -> {
              try {
                call.run();
              } catch (SnowflakeException e) {
                outcome.set(e.getClass().getSimpleName() + ": " + e.getMessage());
              }
            });
    t.start();
    Thread.sleep(100);
    g.close();
    t.join();
    return outcome.get();
  }

  @Test
  void closeFromAnotherThreadEndsAWaitingNextId() throws Exception {
    Generator g = waiting(1);
    assertEquals("InvalidArgumentException: " + CLOSED, closedWhileWaiting(g, g::nextId));
  }

  @Test
  void closeFromAnotherThreadEndsAWaitingBatch() throws Exception {
    Generator g = waiting(2);
    assertEquals("InvalidArgumentException: " + CLOSED, closedWhileWaiting(g, () -> g.nextIds(10)));
  }

  /**
   * In a child JVM whose freed memory is overwritten (MALLOC_PERTURB_), collections forced while
   * calls wait on generators that only those calls still reach, and on one closed meanwhile: each
   * call ends as it should, with the core's own words.
   */
  @Test
  void waitingCallsKeepTheirGeneratorFromTheCleaner() throws Exception {
    Process p =
        MultiJvmTest.child(
            Map.of("MALLOC_PERTURB_", "165"),
            List.of(),
            CloseRaceChild.class.getName(),
            Long.toString(RunEpoch.MS));
    String out = MultiJvmTest.finish(p);
    assertEquals(
        "unreachable: issued worker=3\nclosed: InvalidArgumentException: " + CLOSED + "\n", out);
  }
}
