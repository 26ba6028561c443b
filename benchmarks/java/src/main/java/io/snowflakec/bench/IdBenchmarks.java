package io.snowflakec.bench;

import cn.hutool.core.lang.Snowflake;
import com.github.f4b6a3.tsid.TsidFactory;
import com.github.yitter.contract.IdGeneratorOptions;
import com.github.yitter.idgen.DefaultIdGenerator;
import io.snowflakec.Generator;
import io.snowflakec.Layout;
import io.snowflakec.TimeSource;
import java.util.concurrent.TimeUnit;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * IDs per second of snowflake-c beside other Java generators, side by side in one run.
 *
 * <ul>
 *   <li>{@code snowflakec*Wide}: layout {@code time:41@1ms,worker:1,seq:21}, so that the sequence
 *       never caps the rate: the cost of a call is what is measured.
 *   <li>{@code snowflakecNextIdWideCounter}: the same with {@code TimeSource.COUNTER} (the wall
 *       clock read again only once the processor's counter shows its millisecond over).
 *   <li>{@code snowflakecClassic}: the {@code twitter} preset, 4 096 IDs per ms: its limit is 4.096
 *       M IDs/s, which it should reach on 1 and 2 threads.
 *   <li>Peers with their defaults: hutool {@code Snowflake} and CosId {@code
 *       MillisecondSnowflakeId} (both 12-bit sequences that wait for the next ms, stamping real
 *       time), yitter {@code DefaultIdGenerator} (drift: borrows future ms when overloaded),
 *       tsid-creator {@code TsidFactory} (counter overflow advances the time).
 *   <li>{@code cosidMillisecondSnowflakeIdWide}: CosId at the wide layout's widths (41/1/21), the
 *       peer beside {@code snowflakecNextIdWide}.
 * </ul>
 *
 * <p>Every benchmark keeps each ID it is given ({@link Kept}), as a user does; the IDs kept are
 * checked for duplicates at the end of each run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IdBenchmarks {
  Snowflake hutool;
  DefaultIdGenerator yitter;
  MillisecondSnowflakeId cosid;
  MillisecondSnowflakeId cosidWide;
  TsidFactory tsid;

  /** A reusable array per thread for the fill-your-own-array form. */
  @State(Scope.Thread)
  public static class Buffer {
    final long[] ids = new long[1000];
  }

  /**
   * snowflake-c on the wide layout, by default and with the counter. A state of its own: the wide
   * layout's worker 0 and the twitter layout's datacenter 1, worker 1 can issue the same integers,
   * so the host-wide claim refuses the two in one process (as it should).
   */
  @State(Scope.Benchmark)
  public static class Wide {
    Generator wall;
    Generator counter;

    @Setup
    public void setup() {
      wall =
          Generator.builder()
              .layout(Layout.parse("time:41@1ms,worker:1,seq:21", 1704067200000L))
              .node("worker", 1)
              .build();
      counter = wideCounter();
    }

    @TearDown
    public void tearDown() {
      wall.close();
      counter.close();
    }
  }

  /** snowflake-c on the twitter layout, in benchmarks of its own (see {@link Wide}). */
  @State(Scope.Benchmark)
  public static class Classic {
    Generator twitter;

    @Setup
    public void setup() {
      twitter =
          Generator.builder().preset("twitter").node("datacenter", 1).node("worker", 1).build();
    }

    @TearDown
    public void tearDown() {
      twitter.close();
    }
  }

  @Setup
  public void setup() throws Exception {
    hutool = new Snowflake(1, 1);
    yitter = new DefaultIdGenerator(new IdGeneratorOptions((short) 1));
    cosid = new MillisecondSnowflakeId(1);
    cosidWide = cosidWide();
    tsid = TsidFactory.builder().withNode(1).build();
  }

  /** The wide layout with {@code TimeSource.COUNTER}, on a node value of its own (worker 0). */
  static Generator wideCounter() {
    return Generator.builder()
        .layout(Layout.parse("time:41@1ms,worker:1,seq:21", 1704067200000L))
        .node("worker", 0)
        .timeSource(TimeSource.COUNTER)
        .build();
  }

  /** CosId at the wide layout's widths (41 time bits, 1 machine bit, 21 sequence bits). */
  static MillisecondSnowflakeId cosidWide() {
    return new MillisecondSnowflakeId(1704067200000L, 41, 1, 21, 1);
  }

  @Benchmark
  public void snowflakecNextIdWide(Wide w, Kept k) {
    k.keep(w.wall.nextId());
  }

  @Benchmark
  public void snowflakecNextIdWideCounter(Wide w, Kept k) {
    k.keep(w.counter.nextId());
  }

  @Benchmark
  @OperationsPerInvocation(1000)
  public void snowflakecNextIds1000Wide(Wide w, Kept k) {
    k.keep(w.wall.nextIds(1000));
  }

  @Benchmark
  @OperationsPerInvocation(1000)
  public void snowflakecNextIdsInto1000Wide(Wide w, Buffer b, Kept k) {
    w.wall.nextIds(b.ids);
    k.keep(b.ids);
  }

  @Benchmark
  public void snowflakecNextIdClassic(Classic c, Kept k) {
    k.keep(c.twitter.nextId());
  }

  @Benchmark
  public void hutoolSnowflake(Kept k) {
    k.keep(hutool.nextId());
  }

  @Benchmark
  public void yitterIdGenerator(Kept k) {
    k.keep(yitter.newLong());
  }

  @Benchmark
  public void cosidMillisecondSnowflakeId(Kept k) {
    k.keep(cosid.generate());
  }

  @Benchmark
  public void cosidMillisecondSnowflakeIdWide(Kept k) {
    k.keep(cosidWide.generate());
  }

  @Benchmark
  public void tsidCreator(Kept k) {
    k.keep(tsid.create().toLong());
  }
}
