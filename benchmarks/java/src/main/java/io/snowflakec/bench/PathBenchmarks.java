package io.snowflakec.bench;

import com.github.f4b6a3.tsid.TsidFactory;
import io.snowflakec.Generator;
import io.snowflakec.Layout;
import java.util.concurrent.TimeUnit;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * How {@code nextId()} reaches the core, one way per fork (nanoseconds per ID): the pure-Java fast
 * path with the core behind it (the default for the wall clock), the core alone through FFM
 * downcalls (Java 22+ with native access) and through JNI, with the default time source and with
 * {@code counter} (whose generators always call the core); CosId (the same widths, 41/1/21) and
 * tsid-creator beside them. Run on Java 22+ with {@code --enable-native-access=ALL-UNNAMED}
 * (benchmarks/run passes it); on Java 17 the FFM rows are JNI.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PathBenchmarks {
  private static final String WIDE = "time:41@1ms,worker:1,seq:21";

  Generator wall;
  Generator counter;
  MillisecondSnowflakeId cosid;
  TsidFactory tsid;

  /** A reusable array per thread for the batches. */
  @State(Scope.Thread)
  public static class Buffer {
    final long[] ids = new long[1000];
    final long[] few = new long[10];
  }

  @Setup
  public void setup() {
    wall = Generator.builder().layout(Layout.parse(WIDE, 1704067200000L)).node(1).build();
    counter =
        Generator.builder()
            .layout(Layout.parse(WIDE, 1704067200000L))
            .node(0)
            .timeSource("counter")
            .build();
    cosid = new MillisecondSnowflakeId(1704067200000L, 41, 1, 21, 1); // the same widths
    tsid = TsidFactory.builder().withNode(1).build();
  }

  @TearDown
  public void tearDown() {
    wall.close();
    counter.close();
  }

  @Benchmark
  public long fastPath() {
    return wall.nextId();
  }

  @Benchmark
  @Fork(jvmArgsAppend = "-Dio.snowflakec.fastPath=false")
  public long coreFfm() {
    return wall.nextId();
  }

  @Benchmark
  @Fork(jvmArgsAppend = {"-Dio.snowflakec.fastPath=false", "-Dio.snowflakec.calls=jni"})
  public long coreJni() {
    return wall.nextId();
  }

  /** A counter generator calls the core every time: no fast path to turn off. */
  @Benchmark
  public long counterCoreFfm() {
    return counter.nextId();
  }

  @Benchmark
  @Fork(jvmArgsAppend = "-Dio.snowflakec.calls=jni")
  public long counterCoreJni() {
    return counter.nextId();
  }

  @Benchmark
  @OperationsPerInvocation(10)
  public long[] batch10Ffm(Buffer b) {
    wall.nextIds(b.few);
    return b.few;
  }

  @Benchmark
  @OperationsPerInvocation(10)
  @Fork(jvmArgsAppend = "-Dio.snowflakec.calls=jni")
  public long[] batch10Jni(Buffer b) {
    wall.nextIds(b.few);
    return b.few;
  }

  @Benchmark
  @OperationsPerInvocation(1000)
  public long[] batch1000Ffm(Buffer b) {
    wall.nextIds(b.ids);
    return b.ids;
  }

  @Benchmark
  @OperationsPerInvocation(1000)
  @Fork(jvmArgsAppend = "-Dio.snowflakec.calls=jni")
  public long[] batch1000Jni(Buffer b) {
    wall.nextIds(b.ids);
    return b.ids;
  }

  @Benchmark
  public long cosid() {
    return cosid.generate();
  }

  @Benchmark
  public long tsidCreator() {
    return tsid.create().toLong();
  }
}
