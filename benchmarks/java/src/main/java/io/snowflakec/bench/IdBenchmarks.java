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
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IdBenchmarks {
  Generator wide;
  Generator wideCounter;
  Generator classic;
  Snowflake hutool;
  DefaultIdGenerator yitter;
  MillisecondSnowflakeId cosid;
  TsidFactory tsid;

  /** A reusable array per thread for the fill-your-own-array form. */
  @State(Scope.Thread)
  public static class Buffer {
    final long[] ids = new long[1000];
  }

  @Setup
  public void setup() throws Exception {
    wide =
        Generator.builder()
            .layout(Layout.parse("time:41@1ms,worker:1,seq:21", 1704067200000L))
            .node("worker", 1)
            .build();
    wideCounter = wideCounter();
    classic = Generator.builder().preset("twitter").node("datacenter", 1).node("worker", 1).build();
    hutool = new Snowflake(1, 1);
    yitter = new DefaultIdGenerator(new IdGeneratorOptions((short) 1));
    cosid = new MillisecondSnowflakeId(1);
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

  @TearDown
  public void tearDown() {
    wide.close();
    wideCounter.close();
    classic.close();
  }

  @Benchmark
  public long snowflakecNextIdWide() {
    return wide.nextId();
  }

  @Benchmark
  public long snowflakecNextIdWideCounter() {
    return wideCounter.nextId();
  }

  @Benchmark
  @OperationsPerInvocation(1000)
  public long[] snowflakecNextIds1000Wide() {
    return wide.nextIds(1000);
  }

  @Benchmark
  @OperationsPerInvocation(1000)
  public long[] snowflakecNextIdsInto1000Wide(Buffer b) {
    wide.nextIds(b.ids);
    return b.ids;
  }

  @Benchmark
  public long snowflakecNextIdClassic() {
    return classic.nextId();
  }

  @Benchmark
  public long hutoolSnowflake() {
    return hutool.nextId();
  }

  @Benchmark
  public long yitterIdGenerator() {
    return yitter.newLong();
  }

  @Benchmark
  public long cosidMillisecondSnowflakeId() {
    return cosid.generate();
  }

  @Benchmark
  public long tsidCreator() {
    return tsid.create().toLong();
  }
}
