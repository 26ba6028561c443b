package io.snowflakec.bench;

import com.github.f4b6a3.tsid.TsidFactory;
import io.snowflakec.Generator;
import io.snowflakec.Layout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;

/**
 * {@code nextId()} side by side with the pure-Java peers, as their users call them: every ID kept
 * in an array, the contenders interleaved round by round (so that a load from elsewhere falls on
 * all of them alike), the duplicates of every round counted. Prints each contender's median ns per
 * ID and the ratios of snowflake-c's speed to each peer's.
 *
 * <ul>
 *   <li>{@code snowflakec}: {@code Generator.nextId()}, layout {@code time:41@1ms,worker:1,seq:21}
 *   <li>{@code cosid}: CosId {@code MillisecondSnowflakeId} with the same widths (41/1/21)
 *   <li>{@code tsid}: tsid-creator {@code TsidFactory.builder().withNode(1)}
 * </ul>
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.snowflakec.bench.SideBySide [rounds] [ids] [threads]}
 * (9, 4 000 000 and 1 by default; the first round is a warm-up, not counted). With threads, they
 * share one generator of each contender, each filling its own slice; ns per ID is then wall time
 * over all the IDs.
 */
public final class SideBySide {
  private SideBySide() {}

  // One loop per contender, so that each call site sees one receiver (as in JMH, where every
  // benchmark method is compiled on its own) and no contender pays for another's profile.
  private static void ours(Generator g, long[] ids, int from, int to) {
    for (int i = from; i < to; i++) {
      ids[i] = g.nextId();
    }
  }

  private static void cosid(MillisecondSnowflakeId c, long[] ids, int from, int to) {
    for (int i = from; i < to; i++) {
      ids[i] = c.generate();
    }
  }

  private static void tsid(TsidFactory t, long[] ids, int from, int to) {
    for (int i = from; i < to; i++) {
      ids[i] = t.create().toLong();
    }
  }

  /** A contender's loop over a slice of the IDs. */
  private interface Slice {
    void fill(long[] ids, int from, int to);
  }

  /** Fills ids with {@code threads} threads, each its own slice, all on one generator. */
  private static void fill(Slice slice, long[] ids, int threads) {
    if (threads == 1) {
      slice.fill(ids, 0, ids.length);
      return;
    }
    Thread[] workers = new Thread[threads];
    int per = ids.length / threads;
    for (int t = 0; t < threads; t++) {
      int from = t * per;
      int to = t == threads - 1 ? ids.length : from + per;
      workers[t] = new Thread(() -> slice.fill(ids, from, to));
      workers[t].start();
    }
    for (Thread w : workers) {
      try {
        w.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  private static long duplicates(long[] ids) {
    long[] sorted = ids.clone();
    Arrays.sort(sorted);
    long dup = 0;
    for (int i = 1; i < sorted.length; i++) {
      dup += sorted[i] == sorted[i - 1] ? 1 : 0;
    }
    return dup;
  }

  private static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 4_000_000;
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    Generator ours =
        Generator.builder()
            .layout(Layout.parse("time:41@1ms,worker:1,seq:21", 1704067200000L))
            .node("worker", 1)
            .build();
    MillisecondSnowflakeId cosid = new MillisecondSnowflakeId(1704067200000L, 41, 1, 21, 1);
    TsidFactory tsid = TsidFactory.builder().withNode(1).build();
    Map<String, Slice> contenders = new LinkedHashMap<>();
    contenders.put("snowflakec", (ids, from, to) -> ours(ours, ids, from, to));
    contenders.put("cosid", (ids, from, to) -> cosid(cosid, ids, from, to));
    contenders.put("tsid", (ids, from, to) -> tsid(tsid, ids, from, to));
    Map<String, List<Double>> ns = new LinkedHashMap<>();
    contenders.keySet().forEach(k -> ns.put(k, new ArrayList<>()));
    long[] ids = new long[count];
    long dups = 0;
    for (int round = 0; round <= rounds; round++) {
      StringBuilder line = new StringBuilder(round == 0 ? "warm-up" : "round " + round);
      for (Map.Entry<String, Slice> c : contenders.entrySet()) {
        long t0 = System.nanoTime();
        fill(c.getValue(), ids, threads);
        double perId = (System.nanoTime() - t0) / (double) count;
        long d = duplicates(ids);
        dups += d;
        line.append(String.format("  %s %.1f ns%s", c.getKey(), perId, d > 0 ? " DUP " + d : ""));
        if (round > 0) {
          ns.get(c.getKey()).add(perId);
        }
      }
      System.out.println(line);
    }
    ours.close();
    double mine = median(ns.get("snowflakec"));
    StringBuilder summary = new StringBuilder(threads + " thread(s), median ns/ID:");
    ns.forEach((k, v) -> summary.append(String.format(" %s %.1f", k, median(v))));
    summary.append(
        String.format("; snowflakec speed ÷ cosid %.2f×", median(ns.get("cosid")) / mine));
    summary.append(String.format(", ÷ tsid %.2f×", median(ns.get("tsid")) / mine));
    summary.append("; duplicates ").append(dups);
    System.out.println(summary);
    if (dups > 0) {
      System.exit(1);
    }
  }
}
