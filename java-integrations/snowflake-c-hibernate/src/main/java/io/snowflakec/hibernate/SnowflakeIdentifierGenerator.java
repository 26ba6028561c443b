package io.snowflakec.hibernate;

import java.util.EnumSet;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;

/**
 * The generator behind {@link SnowflakeId}: the next ID of the registered {@link
 * io.snowflakec.Generator}, on insert only. Its API is common to Hibernate 6.6 and 7.
 */
public final class SnowflakeIdentifierGenerator implements BeforeExecutionGenerator {
  /** The name of the registered generator: empty for the default one. */
  private final String name;

  /**
   * Called by Hibernate for each {@link SnowflakeId} identifier.
   *
   * @param config the annotation
   */
  public SnowflakeIdentifierGenerator(SnowflakeId config) {
    this.name = config.generator();
  }

  @Override
  public Object generate(
      SharedSessionContractImplementor session,
      Object owner,
      Object currentValue,
      EventType eventType) {
    return SnowflakeIdGenerators.get(name).nextId();
  }

  @Override
  public EnumSet<EventType> getEventTypes() {
    return EventTypeSets.INSERT_ONLY;
  }
}
