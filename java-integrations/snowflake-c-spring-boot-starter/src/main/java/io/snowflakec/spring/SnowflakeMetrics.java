package io.snowflakec.spring;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.snowflakec.Generator;
import io.snowflakec.Stats;
import java.util.function.ToLongFunction;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The generator's counters ({@code snowflake.c.*}) in every {@link MeterRegistry} of the context,
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
    counter(registry, "snowflake.c.ids.issued", "IDs issued", Stats::idsIssued);
    counter(registry, "snowflake.c.waits", "waits for the next tick", Stats::waits);
    counter(registry, "snowflake.c.rollbacks", "clock rollbacks seen", Stats::rollbacks);
    counter(registry, "snowflake.c.clock.bumps", "clock field bumps", Stats::clockBumps);
    counter(registry, "snowflake.c.node.switches", "node value switches", Stats::nodeSwitches);
  }

  private void counter(
      MeterRegistry registry, String name, String description, ToLongFunction<Stats> value) {
    FunctionCounter.builder(
            name, generator, g -> g.isClosed() ? Double.NaN : (double) value.applyAsLong(g.stats()))
        .description(description)
        .register(registry);
  }
}
