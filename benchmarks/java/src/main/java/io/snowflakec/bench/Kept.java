package io.snowflakec.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Every ID a benchmark thread is given, kept as a user keeps them: stored into a preallocated array
 * of its own (2^24 IDs, the index wrapping round), so that no contender's result is discarded.
 * After the trial the IDs still held by all threads of the benchmark are checked together: a
 * duplicate fails the benchmark ({@link DuplicateCheck} checks every ID of longer runs).
 */
@State(Scope.Thread)
public class Kept {
  /** 2^24 IDs per thread: 128 MiB, several times what one iteration issues at most. */
  static final int SIZE = 1 << 24;

  private static final int MASK = SIZE - 1;

  long[] ids;
  int next;

  /** The highest index written before a batch started over, and whether one ID wrapped round. */
  private int high;

  private boolean wrapped;

  /** The threads of one benchmark, whose kept IDs are checked together at its end. */
  @State(Scope.Benchmark)
  public static class All {
    final List<Kept> threads = Collections.synchronizedList(new ArrayList<>());

    @TearDown(Level.Trial)
    public void check() {
      long[] held;
      synchronized (threads) {
        int total = 0;
        for (Kept k : threads) {
          total = Math.addExact(total, k.held());
        }
        held = new long[total];
        int at = 0;
        for (Kept k : threads) {
          System.arraycopy(k.ids, 0, held, at, k.held());
          at += k.held();
        }
      }
      Arrays.sort(held);
      long dup = 0;
      for (int i = 1; i < held.length; i++) {
        dup += held[i] == held[i - 1] ? 1 : 0;
      }
      if (dup > 0) {
        throw new IllegalStateException(dup + " duplicates among " + held.length + " kept IDs");
      }
    }
  }

  @Setup(Level.Trial)
  public void setup(All all) {
    ids = new long[SIZE];
    all.threads.add(this);
  }

  /** The count of IDs held at the front of ids. */
  int held() {
    return wrapped ? SIZE : Math.max(next, high);
  }

  /** Keeps one ID. */
  void keep(long id) {
    ids[next] = id;
    next = (next + 1) & MASK;
    if (next == 0) {
      wrapped = true;
    }
  }

  /** Keeps a batch of IDs (shorter than SIZE), starting over at 0 when it would not fit. */
  void keep(long[] batch) {
    if (next + batch.length > SIZE) {
      high = Math.max(high, next);
      next = 0;
    }
    System.arraycopy(batch, 0, ids, next, batch.length);
    next += batch.length;
  }
}
