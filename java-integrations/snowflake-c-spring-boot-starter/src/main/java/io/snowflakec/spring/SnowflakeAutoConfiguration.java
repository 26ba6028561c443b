package io.snowflakec.spring;

import io.snowflakec.Generator;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * A {@link Generator} bean built from the {@code snowflake-c.*} properties and closed with the
 * context (which gives its node value back), the default generator of {@code @SnowflakeId}
 * identifiers, the Jackson module of each Jackson present, and Micrometer gauges of its stats when
 * Micrometer is present. The same classes serve Spring Boot 3.5 and 4.0.
 *
 * <p>A node value {@code lease} ({@code snowflake-c.node.worker=lease}, docs/leases.md) is leased
 * from the PostgreSQL of {@code snowflake-c.lease-url}, else of the application's {@link
 * DataSource} bean (a connection of its pool borrowed per statement), else of {@code
 * SNOWFLAKE_LEASE_URL}.
 */
@AutoConfiguration(
    afterName = {
      // A leased node value runs its statements through the application's DataSource.
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration", // Boot 3
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" // Boot 4
    })
@EnableConfigurationProperties(SnowflakeProperties.class)
public class SnowflakeAutoConfiguration {

  /**
   * The generator of the properties.
   *
   * @param properties the {@code snowflake-c.*} properties
   * @param environment where the options' properties are read
   * @param dataSources the application's DataSource, the database of a leased node value
   * @return the generator, closed with the context
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Generator snowflakeGenerator(
      SnowflakeProperties properties,
      Environment environment,
      ObjectProvider<DataSource> dataSources) {
    Generator.Builder builder = Generator.builder();
    // A blank property is an unset one (a profile can take back what another set).
    String layout = given(properties.getLayout());
    String preset = given(properties.getPreset());
    if (layout != null && preset != null) {
      throw new IllegalStateException(
          "snowflake-c.preset and snowflake-c.layout are both set: give one");
    }
    if (layout != null) {
      builder.layout(layout);
    } else if (preset != null) {
      builder.preset(preset);
    }
    if (given(properties.getEpoch()) != null) {
      builder.epoch(properties.getEpoch().strip());
    }
    for (Map.Entry<String, String> field : properties.getNode().entrySet()) {
      if (given(field.getValue()) != null) {
        builder.node(field.getKey(), field.getValue().strip());
      }
    }
    // Every option of the core's table, under its name in kebab case.
    Binder binder = Binder.get(environment);
    for (String option : Generator.options()) {
      String property =
          "snowflake-c." + option.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
      String value = given(binder.bind(property, String.class).orElse(null));
      if (value != null) {
        builder.option(option, value);
      }
    }
    // The database of a node value "lease" (unused otherwise): the URL given, else the
    // application's DataSource, else SNOWFLAKE_LEASE_URL.
    String leaseUrl = given(properties.getLeaseUrl());
    if (leaseUrl != null) {
      builder.lease(leaseUrl);
    } else if (leased(properties)) {
      DataSource dataSource = dataSources.getIfUnique();
      if (dataSource != null) {
        builder.lease(dataSource);
      } else if (given(System.getenv("SNOWFLAKE_LEASE_URL")) == null) {
        throw new IllegalStateException(
            "a node value 'lease' needs the database: set snowflake-c.lease-url, or give the"
                + " application one DataSource bean (or SNOWFLAKE_LEASE_URL)");
      }
    }
    return builder.build();
  }

  /**
   * Whether a node field is given as "lease": by its property or (the core reads it) the
   * environment's SNOWFLAKE_<FIELD>.
   */
  private static boolean leased(SnowflakeProperties properties) {
    return properties.getNode().values().stream().anyMatch(v -> "lease".equals(given(v)))
        || System.getenv().entrySet().stream()
            .anyMatch(
                e -> e.getKey().startsWith("SNOWFLAKE_") && "lease".equals(given(e.getValue())));
  }

  private static String given(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }

  /**
   * Makes the generator bean the one {@code @SnowflakeId} identifiers draw from.
   *
   * @param properties the {@code snowflake-c.*} properties
   * @param generator the generator bean
   * @return the registration, undone before the generator closes
   */
  @Bean
  public SnowflakeIdRegistration snowflakeIdRegistration(
      SnowflakeProperties properties, Generator generator) {
    return new SnowflakeIdRegistration(properties.getIdGeneratorName(), generator);
  }

  /** Jackson 3 (Boot 4 registers every JacksonModule bean in its JsonMapper). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "tools.jackson.databind.JacksonModule")
  static class Jackson3 {
    @Bean
    @ConditionalOnMissingBean
    io.snowflakec.jackson.SnowflakeIdModule snowflakeJacksonModule(SnowflakeProperties properties) {
      return new io.snowflakec.jackson.SnowflakeIdModule(properties.getJson().getEncoding());
    }
  }

  /** Jackson 2 (Boot 3 registers every Module bean in its ObjectMapper). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "com.fasterxml.jackson.databind.Module")
  static class Jackson2 {
    @Bean
    @ConditionalOnMissingBean
    io.snowflakec.jackson2.SnowflakeIdModule snowflakeJackson2Module(
        SnowflakeProperties properties) {
      return new io.snowflakec.jackson2.SnowflakeIdModule(properties.getJson().getEncoding());
    }
  }

  /** Gauges of the generator's stats in every MeterRegistry of the context. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
  static class Metrics {
    @Bean
    SnowflakeMetrics snowflakeMetrics(
        Generator generator,
        ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registries) {
      return new SnowflakeMetrics(generator, registries);
    }
  }
}
