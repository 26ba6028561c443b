package io.snowflakec.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.snowflakec.Generator;
import io.snowflakec.Layout;
import io.snowflakec.Snowflake;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built jar carries META-INF/spring-configuration-metadata.json, with every property of {@link
 * SnowflakeProperties} (found here by its getters and setters), each described, the defaults the
 * class sets, and value hints that the core takes: every preset, rollback strategies a generator is
 * built with, encodings the Jackson module writes.
 */
class StarterJarIT {
  private static final String METADATA = "META-INF/spring-configuration-metadata.json";

  @Test
  void theJarDescribesEveryProperty(@TempDir Path state) throws Exception {
    String jar = System.getProperty("snowflakec.starter.jar");
    assertNotNull(jar, "snowflakec.starter.jar: set by the pom");
    Map<String, JsonNode> described = new TreeMap<>();
    Map<String, List<String>> hints = new TreeMap<>();
    try (JarFile file = new JarFile(jar)) {
      ZipEntry entry = file.getEntry(METADATA);
      assertNotNull(entry, jar + " has no " + METADATA);
      try (InputStream in = file.getInputStream(entry)) {
        JsonNode metadata = new ObjectMapper().readTree(in);
        for (JsonNode property : metadata.path("properties")) {
          described.put(property.path("name").asText(), property);
        }
        for (JsonNode hint : metadata.path("hints")) {
          List<String> values = new ArrayList<>();
          for (JsonNode value : hint.path("values")) {
            assertFalse(value.path("description").asText().isBlank(), value + " undescribed");
            values.add(value.path("value").asText());
          }
          hints.put(hint.path("name").asText(), values);
        }
      }
    }
    assertTrue(described.keySet().containsAll(hints.keySet()), "hints of unknown properties");
    assertEquals(Layout.presets(), hints.get("snowflake-c.preset"), "the preset hints");
    for (String encoding : hints.get("snowflake-c.json.encoding")) {
      assertEquals(1L, Snowflake.parse(Snowflake.format(1L, encoding), encoding), encoding);
    }
    for (String strategy : hints.get("snowflake-c.rollback")) {
      try (Generator generator =
          Generator.builder()
              .preset("default") // it has a clock field, for the strategy clock
              .node("worker", "auto")
              .stateDir(state)
              .rollback(strategy)
              .build()) {
        // default is a name for the strategy the layout gets.
        if (!strategy.equals("default")) {
          assertEquals(strategy, generator.stats().rollback());
        }
      }
    }
    assertEquals(6, hints.get("snowflake-c.rollback").size(), "the rollback hints");

    Map<String, Object> expected = new TreeMap<>();
    bindable("snowflake-c", SnowflakeProperties.class, new SnowflakeProperties(), expected);
    // And one per option of the core's table.
    Set<String> all = new TreeSet<>(expected.keySet());
    for (String option : Generator.options()) {
      String name = "snowflake-c." + kebab(option);
      all.add(name);
      assertNotNull(described.get(name), name + " missing");
      assertFalse(
          described.get(name).path("description").asText().isBlank(), name + " undescribed");
    }
    assertEquals(all, described.keySet(), "the properties of " + METADATA);
    for (Map.Entry<String, Object> property : expected.entrySet()) {
      JsonNode metadata = described.get(property.getKey());
      assertFalse(
          metadata.path("description").asText().isBlank(), property.getKey() + " undescribed");
      Object value = property.getValue();
      if (value instanceof String || value instanceof Boolean) {
        assertEquals(
            value.toString(),
            metadata.path("defaultValue").asText(),
            property.getKey() + " default");
      } else {
        assertFalse(metadata.has("defaultValue"), property.getKey() + " has a default");
      }
    }
  }

  /**
   * The names Spring Boot binds (kebab-case, nested classes of their own by their getter) and the
   * values a new instance holds.
   */
  private static void bindable(
      String prefix, Class<?> type, Object instance, Map<String, Object> out) throws Exception {
    for (PropertyDescriptor property : Introspector.getBeanInfo(type).getPropertyDescriptors()) {
      if (property.getReadMethod() == null || property.getName().equals("class")) {
        continue;
      }
      String name = prefix + "." + kebab(property.getName());
      Object value = property.getReadMethod().invoke(instance);
      if (property.getWriteMethod() != null) {
        out.put(name, value instanceof Map<?, ?> ? null : value);
      } else if (property.getPropertyType().getEnclosingClass() == SnowflakeProperties.class) {
        bindable(name, property.getPropertyType(), value, out);
      }
    }
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }
}
