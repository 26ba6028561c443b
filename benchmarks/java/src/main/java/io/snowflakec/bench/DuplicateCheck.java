package io.snowflakec.bench;

import cn.hutool.core.lang.Snowflake;
import com.github.f4b6a3.tsid.TsidFactory;
import com.github.yitter.contract.IdGeneratorOptions;
import com.github.yitter.idgen.DefaultIdGenerator;
import io.snowflakec.Generator;
import io.snowflakec.Layout;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;

/**
 * Duplicate check for every contender of {@link IdBenchmarks}, configured the same way: issues
 * {@code count} IDs on 1 thread and {@code count} IDs shared by 2 threads from one generator, keeps
 * them all, sorts them and counts duplicates. JMH measures speed; this checks the IDs.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.snowflakec.bench.DuplicateCheck [count] [json]}
 */
public final class DuplicateCheck {
  private DuplicateCheck() {}

  /**
   * One check's generator, shared by the threads: each thread gets its own {@link LongSupplier}
   * over it. Closed after the check, so that the next snowflake-c generator may take the same node
   * value (the guard refuses two live ones).
   */
  private record Shared(Supplier<LongSupplier> perThread, AutoCloseable generator) {}

  /** A contender: a name (the JMH benchmark method) and, per check, a fresh generator. */
  private record Contender(String benchmark, Supplier<Shared> make) {}

  /** A peer: every thread calls the shared generator; nothing to close. */
  private static Contender single(String benchmark, Supplier<LongSupplier> make) {
    return new Contender(
        benchmark,
        () -> {
          LongSupplier shared = make.get();
          return new Shared(() -> shared, () -> {});
        });
  }

  /** snowflake-c: a fresh generator per check, and each thread's supplier over it. */
  private static Contender ours(
      String benchmark, Supplier<Generator> make, Function<Generator, LongSupplier> perThread) {
    return new Contender(
        benchmark,
        () -> {
          Generator g = make.get();
          return new Shared(() -> perThread.apply(g), g);
        });
  }

  private static Generator wide() {
    return Generator.builder()
        .layout(Layout.parse("time:41@1ms,worker:1,seq:21", 1704067200000L))
        .node("worker", 1)
        .build();
  }

  /** Hands out the IDs of batches of 1000, each thread with its own buffer. */
  private static LongSupplier batches(Supplier<long[]> batch) {
    return new LongSupplier() {
      long[] ids = new long[0];
      int next;

      @Override
      public long getAsLong() {
        if (next == ids.length) {
          ids = batch.get();
          next = 0;
        }
        return ids[next++];
      }
    };
  }

  private static List<Contender> contenders() {
    List<Contender> list = new ArrayList<>();
    list.add(ours("snowflakecNextIdWide", DuplicateCheck::wide, g -> g::nextId));
    list.add(ours("snowflakecNextIdWideCounter", IdBenchmarks::wideCounter, g -> g::nextId));
    if (System.getProperty(Floor.PROPERTY) != null) {
      list.add(
          single(
              "floorNextId",
              () -> {
                long floor = Floor.wide();
                return () -> Floor.next(floor);
              }));
    }
    list.add(
        ours(
            "snowflakecNextIds1000Wide",
            DuplicateCheck::wide,
            g -> batches(() -> g.nextIds(1000))));
    list.add(
        ours(
            "snowflakecNextIdsInto1000Wide",
            DuplicateCheck::wide,
            g -> {
              long[] buffer = new long[1000];
              return batches(
                  () -> {
                    g.nextIds(buffer);
                    return buffer;
                  });
            }));
    list.add(
        ours(
            "snowflakecNextIdClassic",
            () ->
                Generator.builder()
                    .preset("twitter")
                    .node("datacenter", 1)
                    .node("worker", 1)
                    .build(),
            g -> g::nextId));
    list.add(
        single(
            "hutoolSnowflake",
            () -> {
              Snowflake s = new Snowflake(1, 1);
              return s::nextId;
            }));
    list.add(
        single(
            "yitterIdGenerator",
            () -> {
              DefaultIdGenerator y = new DefaultIdGenerator(new IdGeneratorOptions((short) 1));
              return y::newLong;
            }));
    list.add(
        single(
            "cosidMillisecondSnowflakeId",
            () -> {
              MillisecondSnowflakeId c = new MillisecondSnowflakeId(1);
              return c::generate;
            }));
    list.add(
        single(
            "cosidMillisecondSnowflakeIdWide",
            () -> {
              MillisecondSnowflakeId c = IdBenchmarks.cosidWide();
              return c::generate;
            }));
    list.add(
        single(
            "tsidCreator",
            () -> {
              TsidFactory t = TsidFactory.builder().withNode(1).build();
              return () -> t.create().toLong();
            }));
    return list;
  }

  private static long duplicates(long[] ids) {
    Arrays.sort(ids);
    long dup = 0;
    for (int i = 1; i < ids.length; i++) {
      if (ids[i] == ids[i - 1]) {
        dup++;
      }
    }
    return dup;
  }

  /** Duplicates among {@code count} IDs of a fresh generator of {@code c}, on {@code threads}. */
  private static long check(Contender c, int count, int threads) throws Exception {
    Shared shared = c.make().get();
    try (AutoCloseable generator = shared.generator()) {
      return duplicates(issue(shared.perThread(), count, threads));
    }
  }

  private static long[] issue(Supplier<LongSupplier> perThread, int count, int threads)
      throws InterruptedException {
    long[] ids = new long[count];
    int per = count / threads;
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int from = t * per;
      final int to = t == threads - 1 ? count : from + per;
      final LongSupplier next = perThread.get();
      workers[t] =
          new Thread(
              () -> {
                for (int i = from; i < to; i++) {
                  ids[i] = next.getAsLong();
                }
              });
      workers[t].start();
    }
    for (Thread w : workers) {
      w.join();
    }
    return ids;
  }

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    Path json = args.length > 1 ? Path.of(args[1]) : null;
    Map<String, long[]> found = new LinkedHashMap<>();
    for (Contender c : contenders()) {
      long one = check(c, count, 1);
      long two = check(c, count, 2);
      found.put(c.benchmark(), new long[] {one, two});
      System.out.printf(
          "%-30s %d IDs: %d duplicates (1 thread), %d (2 threads)%n",
          c.benchmark(), count, one, two);
    }
    if (json != null) {
      try (PrintWriter out =
          new PrintWriter(Files.newBufferedWriter(json, StandardCharsets.UTF_8))) {
        out.println("[");
        int i = 0;
        for (Map.Entry<String, long[]> e : found.entrySet()) {
          for (int threads = 1; threads <= 2; threads++) {
            out.printf(
                "  {\"benchmark\": \"%s\", \"threads\": %d, \"checked\": %d, \"duplicates\": %d}%s%n",
                e.getKey(),
                threads,
                count,
                e.getValue()[threads - 1],
                i == found.size() - 1 && threads == 2 ? "" : ",");
          }
          i++;
        }
        out.println("]");
      }
    }
  }
}
