package io.snowflakec.spring;

import io.snowflakec.Generator;
import io.snowflakec.hibernate.SnowflakeIdGenerators;
import org.springframework.beans.factory.DisposableBean;

/**
 * The generator bean as the generator of {@code @SnowflakeId} (under {@code
 * snowflake-c.id-generator-name}), from its creation until the context closes (before the
 * generator, which it depends on).
 */
public final class SnowflakeIdRegistration implements DisposableBean {
  private final String name;
  private final Generator generator;

  SnowflakeIdRegistration(String name, Generator generator) {
    this.name = name;
    this.generator = generator;
    SnowflakeIdGenerators.register(name, generator);
  }

  @Override
  public void destroy() {
    SnowflakeIdGenerators.unregister(name, generator);
  }
}
