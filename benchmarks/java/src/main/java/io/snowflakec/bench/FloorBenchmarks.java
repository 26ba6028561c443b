package io.snowflakec.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The floor of the design beside {@link IdBenchmarks}: {@link Floor}'s minimal JNI call doing one
 * {@code nextId()}'s work on the same wide layout (one word shared by the threads, as one generator
 * is), each ID kept ({@link Kept}). Needs {@code -Dsnowflakec.bench.floor=<path>}; without it this
 * benchmark fails alone.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FloorBenchmarks {
  long floor;

  @Setup
  public void setup() {
    floor = Floor.wide();
  }

  @TearDown
  public void tearDown() {
    Floor.free(floor);
  }

  @Benchmark
  public void floorNextId(Kept k) {
    k.keep(Floor.next(floor));
  }
}
