package io.snowflakec.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.snowflakec.Generator;
import io.snowflakec.Layout;
import io.snowflakec.Snowflake;
import io.snowflakec.hibernate.SnowflakeIdGenerators;
import io.snowflakec.spring.example.ShopApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** A context of its own, with a layout and epoch, closed by the test. */
class ContextCloseTest {
  private static final String SPEC = "time:41@1ms,worker:10,seq:12";
  private static final String EPOCH = "2024-01-01T00:00:00Z";

  private static ConfigurableApplicationContext start() {
    // Command line arguments, over application.properties: a blank value unsets one.
    return new SpringApplicationBuilder(ShopApplication.class)
        .run(
            "--snowflake-c.preset=",
            "--snowflake-c.node.datacenter=",
            "--snowflake-c.layout=" + SPEC,
            "--snowflake-c.epoch=" + EPOCH,
            "--snowflake-c.node.worker=600",
            "--snowflake-c.rollback=error",
            "--snowflake-c.max-drift=3ms",
            "--snowflake-c.id-generator-name=closing",
            "--spring.datasource.url=jdbc:h2:mem:closing");
  }

  @Test
  void theGeneratorIsClosedWithTheContextAndItsNodeValueGivenBack() {
    Generator generator;
    try (ConfigurableApplicationContext context = start()) {
      generator = context.getBean(Generator.class);
      assertSame(generator, SnowflakeIdGenerators.get("closing"));
      Layout expected = Layout.parse(SPEC, EPOCH);
      assertEquals(expected.spec(), generator.layout().spec());
      assertEquals(1704067200000L, generator.layout().epochMs());
      assertEquals("error", generator.stats().rollback());
      assertEquals(3, generator.stats().maxDriftMs(), "an option read from the core's table");
      assertEquals(600, Snowflake.decode(generator.nextId(), expected).get("worker"));
      assertFalse(generator.isClosed());
    }
    assertTrue(generator.isClosed());
    assertThrows(IllegalStateException.class, () -> SnowflakeIdGenerators.get("closing"));
    // The guard refuses a second live generator of one node value: this one is accepted only
    // because the context's generator gave the value back.
    try (Generator again =
        Generator.builder().layout(SPEC).epoch(EPOCH).node("worker", 600).build()) {
      assertEquals(600, Snowflake.decode(again.nextId(), again.layout()).get("worker"));
    }
  }
}
