package io.snowflakec.spring;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.snowflakec.Generator;
import io.snowflakec.Stats;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The generator's stats ({@code snowflake.c.*}) in every {@link MeterRegistry} of the context: each
 * counter and gauge of the core's stats table ({@link Stats#counters()}, {@link Stats#gauges()}),
 * read from {@link Generator#stats()} when a registry asks.
 */
public final class SnowflakeMetrics implements MeterBinder, SmartInitializingSingleton {
  private final Generator generator;
  private final ObjectProvider<MeterRegistry> registries;

  SnowflakeMetrics(Generator generator, ObjectProvider<MeterRegistry> registries) {
    this.generator = generator;
    this.registries = registries;
  }

  @Override
  public void afterSingletonsInstantiated() {
    registries.orderedStream().forEach(this::bindTo);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    // Every number of the core's stats table, as the table says it is read.
    for (String stat : Stats.counters()) {
      FunctionCounter.builder(meter(stat), generator, g -> value(g, stat))
          .description(stat)
          .register(registry);
    }
    for (String stat : Stats.gauges()) {
      Gauge.builder(meter(stat), generator, g -> value(g, stat))
          .description(stat)
          .register(registry);
    }
  }

  /** snowflake.c.ids.issued for ids_issued: Micrometer's dotted names. */
  private static String meter(String stat) {
    return "snowflake.c." + stat.replace('_', '.');
  }

  private static double value(Generator generator, String stat) {
    return generator.isClosed()
        ? Double.NaN
        : ((Number) generator.stats().asMap().get(stat)).doubleValue();
  }
}
