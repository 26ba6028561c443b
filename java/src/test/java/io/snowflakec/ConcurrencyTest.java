package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {
  static final int THREADS = 8;
  static final int PER_THREAD = 500_000;

  static void assertUniqueAndPositive(long[] all) {
    long[] sorted = all.clone();
    Arrays.sort(sorted);
    assertTrue(sorted[0] > 0, "IDs are positive");
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        throw new AssertionError("duplicate ID " + sorted[i]);
      }
    }
  }

  @Test
  void eightThreadsHalfAMillionEachNoDuplicates() throws Exception {
    long[] all = new long[THREADS * PER_THREAD];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (Generator g =
        Generator.builder().preset("default").node("worker", 9).guard(false).build()) {
      List<Thread> threads = new ArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      for (int t = 0; t < THREADS; t++) {
        int base = t * PER_THREAD;
        boolean batches = t % 2 == 1;
        Thread th =
            new Thread(
                () -> {
                  try {
                    start.await();
                    long last = 0;
                    if (batches) {
                      // Half the threads take batches, so both entry points race on the state word.
                      for (int i = 0; i < PER_THREAD; i += 1000) {
                        g.nextIds(all, base + i, Math.min(1000, PER_THREAD - i));
                      }
                    } else {
                      for (int i = 0; i < PER_THREAD; i++) {
                        long id = g.nextId();
                        if (id <= last) {
                          throw new AssertionError(
                              "not increasing within a thread: " + last + " then " + id);
                        }
                        all[base + i] = last = id;
                      }
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                });
        th.start();
        threads.add(th);
      }
      start.countDown();
      for (Thread th : threads) {
        th.join();
      }
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      assertEquals((long) all.length, g.stats().idsIssued());
    }
    assertUniqueAndPositive(all);
  }

  @Test
  void closeWhileCallsRunFailsCleanly() throws Exception {
    for (int round = 0; round < 20; round++) {
      Generator g =
          Generator.builder()
              .layout(RunEpoch.layout("time:41@1ms,worker:2,seq:20"))
              .node("worker", 1)
              .build();
      AtomicLong issued = new AtomicLong();
      AtomicReference<Throwable> unexpected = new AtomicReference<>();
      CountDownLatch running = new CountDownLatch(4);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        Thread th =
            new Thread(
                () -> {
                  running.countDown();
                  long[] buf = new long[64];
                  try {
                    for (; ; ) {
                      g.nextId();
                      g.nextIds(buf);
                      g.stats();
                      issued.addAndGet(65);
                    }
                  } catch (InvalidArgumentException e) {
                    // closed: the expected end
                  } catch (Throwable e) {
                    unexpected.compareAndSet(null, e);
                  }
                });
        th.start();
        threads.add(th);
      }
      running.await();
      Thread.sleep(2);
      g.close();
      g.close(); // twice is fine
      for (Thread th : threads) {
        th.join();
      }
      if (unexpected.get() != null) {
        throw new AssertionError(unexpected.get());
      }
      assertTrue(g.isClosed());
      assertThrows(InvalidArgumentException.class, g::nextId);
      assertThrows(InvalidArgumentException.class, () -> g.nextIds(3));
      assertThrows(InvalidArgumentException.class, g::stats);
      assertThrows(InvalidArgumentException.class, g::nowUs);
      assertThrows(InvalidArgumentException.class, g::layout);
    }
  }

  /**
   * Threads issue (most by the rule the core publishes, some in batches through the core) while
   * another closes: every ID unique, every call begun after close() returned throws the core's
   * closed answer, and the value's next holder starts after every ID issued.
   */
  @Test
  void closeRacingTheFastPathIssuesEachIdOnce() throws Exception {
    Layout layout = RunEpoch.layout("time:41@1ms,worker:10,seq:12");
    for (int round = 0; round < 10; round++) {
      Generator g = Generator.builder().layout(layout).node("worker", 7).build();
      int threads = 3;
      int room = 4_000_000;
      long[][] ids = new long[threads][room];
      int[] counts = new int[threads];
      AtomicReference<Throwable> unexpected = new AtomicReference<>();
      java.util.concurrent.atomic.AtomicBoolean closed =
          new java.util.concurrent.atomic.AtomicBoolean();
      CountDownLatch running = new CountDownLatch(threads);
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        Thread th =
            new Thread(
                () -> {
                  running.countDown();
                  long[] mine = ids[me];
                  long[] buf = new long[8];
                  int n = 0;
                  try {
                    for (int after = 0; after < 100 && n + buf.length <= room; ) {
                      boolean late = closed.get(); // this call begins after close() returned
                      try {
                        if (me == 2 && n % 64 == 0) {
                          g.nextIds(buf);
                          System.arraycopy(buf, 0, mine, n, buf.length);
                          n += buf.length;
                        } else {
                          long id = g.nextId();
                          mine[n++] = id;
                        }
                        if (late) {
                          throw new AssertionError("an ID issued after close() returned");
                        }
                      } catch (InvalidArgumentException e) {
                        if (!e.getMessage().contains("the generator is closed: create a new one")) {
                          throw e;
                        }
                        after += late ? 1 : 0;
                      }
                    }
                  } catch (Throwable e) {
                    unexpected.compareAndSet(null, e);
                  }
                  counts[me] = n;
                });
        th.start();
        workers.add(th);
      }
      running.await();
      Thread.sleep(5);
      g.close();
      closed.set(true);
      for (Thread th : workers) {
        th.join();
      }
      if (unexpected.get() != null) {
        throw new AssertionError(unexpected.get());
      }
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class, g::nextId);
      assertTrue(e.getMessage().contains("the generator is closed"), e.getMessage());
      int total = 0;
      for (int c : counts) {
        total += c;
      }
      long[] all = new long[total];
      for (int t = 0, at = 0; t < threads; t++) {
        System.arraycopy(ids[t], 0, all, at, counts[t]);
        at += counts[t];
      }
      assertTrue(total > 0, "IDs issued before the close");
      assertUniqueAndPositive(all);
      long last = Arrays.stream(all).max().getAsLong();
      try (Generator next = Generator.builder().layout(layout).node("worker", 7).build()) {
        long first = next.nextId();
        assertTrue(first > last, "the next holder starts after " + last + ", not at " + first);
      }
    }
  }

  @Test
  void longSupplierViewAndBatchesAgree() {
    try (Generator g =
        Generator.builder()
            .preset("twitter")
            .node("datacenter", 2)
            .node("worker", 3)
            .guard(false)
            .build()) {
      java.util.function.LongSupplier s = g.asLongSupplier();
      long a = s.getAsLong();
      long[] batch = g.nextIds(5000);
      long b = g.nextId();
      assertTrue(a < batch[0]);
      for (int i = 1; i < batch.length; i++) {
        assertTrue(batch[i - 1] < batch[i], "a batch is increasing");
      }
      assertTrue(batch[batch.length - 1] < b);
      Parts p = Snowflake.decode(b, g.layout());
      assertEquals(2, p.get("datacenter"));
      assertEquals(3, p.get("worker"));
      assertTrue(Math.abs(p.timeMs() - System.currentTimeMillis()) < 5_000);
      assertEquals(0, g.nextIds(0).length);
    }
  }
}
