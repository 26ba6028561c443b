package io.snowflakec.spring;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** A meter registry for the tests (an application gets one from the actuator). */
@TestConfiguration(proxyBeanMethods = false)
public class Meters {
  @Bean
  SimpleMeterRegistry meterRegistry() {
    return new SimpleMeterRegistry();
  }
}
