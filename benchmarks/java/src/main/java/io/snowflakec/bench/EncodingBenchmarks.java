package io.snowflakec.bench;

import com.github.f4b6a3.tsid.Tsid;
import io.snowflakec.Generator;
import io.snowflakec.Layout;
import io.snowflakec.Snowflake;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import me.ahoo.cosid.converter.Radix62IdConverter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * String forms per second: snowflake-c's {@code Snowflake.format} and {@code Snowflake.parse}
 * beside the peers that write the same text for the same ID.
 *
 * <ul>
 *   <li>base32 (Crockford, 13 characters): tsid-creator's {@code Tsid.toString()} and {@code
 *       Tsid.from(String)}.
 *   <li>base62 (0-9A-Za-z, 11 characters, padded with '0'): CosId's {@code
 *       Radix62IdConverter.PAD_START}, and tsid-creator's {@code encode(62)} / {@code decode(text,
 *       62)}.
 * </ul>
 *
 * <p>Each call formats or parses one ID of the wide layout {@code time:41@1ms,worker:1,seq:21}. The
 * setup checks that every peer gives snowflake-c's text and reads it back to the same ID, so that
 * only identical work is compared; a mismatch fails the benchmark.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EncodingBenchmarks {
  static final int IDS = 1024;

  long[] ids;
  String[] base32;
  String[] base62;

  @Setup
  public void setup() {
    try (Generator g =
        Generator.builder()
            .layout(Layout.parse("time:41@1ms,worker:1,seq:21", 1704067200000L))
            .node("worker", 1)
            .build()) {
      ids = g.nextIds(IDS);
    }
    base32 = texts(id -> Snowflake.format(id, "base32"));
    base62 = texts(id -> Snowflake.format(id, "base62"));
    sameTexts("tsid-creator Tsid.toString()", base32, id -> Tsid.from(id).toString());
    sameIds("tsid-creator Tsid.from", base32, text -> Tsid.from(text).toLong());
    sameTexts("tsid-creator encode(62)", base62, id -> Tsid.from(id).encode(62));
    sameIds("tsid-creator decode(62)", base62, text -> Tsid.decode(text, 62).toLong());
    sameTexts("CosId Radix62IdConverter.asString", base62, Radix62IdConverter.PAD_START::asString);
    sameIds("CosId Radix62IdConverter.asLong", base62, Radix62IdConverter.PAD_START::asLong);
  }

  private String[] texts(LongFunction<String> format) {
    String[] out = new String[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = format.apply(ids[i]);
    }
    return out;
  }

  private void sameTexts(String peer, String[] ours, LongFunction<String> format) {
    for (int i = 0; i < ids.length; i++) {
      String text = format.apply(ids[i]);
      if (!text.equals(ours[i])) {
        throw new IllegalStateException(
            peer + " writes " + text + " for " + ids[i] + ", snowflake-c " + ours[i]);
      }
    }
  }

  private void sameIds(String peer, String[] ours, ToLongFunction<String> parse) {
    for (int i = 0; i < ids.length; i++) {
      long id = parse.applyAsLong(ours[i]);
      if (id != ids[i]) {
        throw new IllegalStateException(
            peer + " reads " + ours[i] + " as " + id + ", not " + ids[i]);
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void snowflakecFormatBase32(Blackhole bh) {
    for (long id : ids) {
      bh.consume(Snowflake.format(id, "base32"));
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void snowflakecParseBase32(Blackhole bh) {
    for (String text : base32) {
      bh.consume(Snowflake.parse(text, "base32"));
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void snowflakecFormatBase62(Blackhole bh) {
    for (long id : ids) {
      bh.consume(Snowflake.format(id, "base62"));
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void snowflakecParseBase62(Blackhole bh) {
    for (String text : base62) {
      bh.consume(Snowflake.parse(text, "base62"));
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void tsidFormatBase32(Blackhole bh) {
    for (long id : ids) {
      bh.consume(Tsid.from(id).toString());
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void tsidParseBase32(Blackhole bh) {
    for (String text : base32) {
      bh.consume(Tsid.from(text).toLong());
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void tsidFormatBase62(Blackhole bh) {
    for (long id : ids) {
      bh.consume(Tsid.from(id).encode(62));
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void tsidParseBase62(Blackhole bh) {
    for (String text : base62) {
      bh.consume(Tsid.decode(text, 62).toLong());
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void cosidFormatBase62(Blackhole bh) {
    for (long id : ids) {
      bh.consume(Radix62IdConverter.PAD_START.asString(id));
    }
  }

  @Benchmark
  @OperationsPerInvocation(IDS)
  public void cosidParseBase62(Blackhole bh) {
    for (String text : base62) {
      bh.consume(Radix62IdConverter.PAD_START.asLong(text));
    }
  }
}
