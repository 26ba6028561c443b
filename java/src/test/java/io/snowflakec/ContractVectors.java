package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.function.Executable;

/**
 * The cases of tests/vectors/contract.json (shapes in tests/vectors/README.md): options set by
 * their Java name, the preset/layout/epoch trio, node values, the warnings of a new generator,
 * calls on a closed generator, calls on IDs with no layout named and the names walked from the
 * core's tables.
 */
final class ContractVectors {
  private ContractVectors() {}

  static void run(JsonNode c) throws Throwable {
    if (c.has("option")) {
      runOption(c);
    } else if (c.has("args")) {
      runArgs(c);
    } else if (c.has("call")) {
      runCall(c);
    } else if (c.has("for_ids")) {
      runForIds(c);
    } else if (c.has("table")) {
      runTable(c);
    } else {
      fail("a contract case of no known shape: " + c);
    }
  }

  /** A JSON value as the Java value a caller would write: null, Boolean, Long, Double, String. */
  static Object javaValue(JsonNode v) {
    if (v.isNull()) {
      return null;
    }
    if (v.isBoolean()) {
      return v.booleanValue();
    }
    if (v.isIntegralNumber()) {
      return v.longValue();
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    return v.asText();
  }

  /** The twitter preset, node datacenter 1 and worker 1. */
  static Generator.Builder twitter() {
    return Generator.builder().preset("twitter").node("datacenter", 1).node("worker", 1);
  }

  /** The outcome of building: the expected error, or the checks on a new generator. */
  static void expect(JsonNode c, Generator.Builder b, String at, Check check) throws Throwable {
    if (c.has("error")) {
      VectorTest.expectError(c.get("error").asText(), () -> b.build().close(), at);
      // Java names the options in camelCase: stateDir, not state_dir.
      JsonNode said = c.path("message_in_terms").path("camel");
      if (!said.isMissingNode()) {
        SnowflakeException e = assertThrows(SnowflakeException.class, () -> b.build().close(), at);
        assertTrue(
            e.getMessage().contains(said.asText()),
            "'" + said.asText() + "' is not in: " + e.getMessage());
      }
      return;
    }
    try (Generator g = b.build()) {
      check.on(g);
    }
  }

  interface Check {
    void on(Generator g) throws Throwable;
  }

  static void runOption(JsonNode c) throws Throwable {
    String option = c.get("option").asText();
    String name = Facts.camelCase(option);
    // The guard off, unless the case sets it: then its value replaces this one.
    Generator.Builder b = twitter().guard(false);
    b.option(name, javaValue(c.get("value")));
    expect(c, b, name, g -> matches(c.get("stats"), g.stats().asMap(), "stats"));
  }

  static void runArgs(JsonNode c) throws Throwable {
    JsonNode args = c.get("args");
    Generator.Builder b = Generator.builder().guard(c.path("guard").asBoolean(false));
    if (args.has("preset")) {
      b.preset(args.get("preset").asText());
    }
    if (args.has("layout")) {
      b.layout(args.get("layout").asText());
    }
    if (args.has("epoch")) {
      b.epoch(args.get("epoch").asText());
    }
    if (args.has("layout_object")) {
      // The Layout object is made first; the builder takes it as its layout.
      JsonNode ref = args.get("layout_object");
      b.layout(
          ref.has("preset")
              ? Layout.preset(ref.get("preset").asText())
              : Layout.parse(ref.get("spec").asText(), ref.get("epoch").asText()));
    }
    JsonNode node = c.get("node");
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getValue().isIntegralNumber()) {
          b.node(e.getKey(), e.getValue().longValue());
        } else {
          b.node(e.getKey(), e.getValue().asText());
        }
      }
    } else if (node.isIntegralNumber()) {
      b.node(node.longValue());
    } else {
      b.node(node.asText());
    }
    expect(
        c,
        b,
        "args " + args,
        g -> {
          if (c.has("describe")) {
            matches(c.get("describe"), g.layout().describe(), "describe");
          }
          if (c.has("stats")) {
            matches(c.get("stats"), g.stats().asMap(), "stats");
          }
          if (c.has("warnings")) {
            assertWarnings(c.get("warnings"), g.warnings());
          }
        });
  }

  /**
   * The generator's warnings ({@link Generator#warnings()}: what it logged, each text once per JVM)
   * are the case's, in order: each its kind and its text holding every string of {@code
   * message_has}.
   */
  static void assertWarnings(JsonNode want, List<Generator.Warning> said) {
    List<String> kinds = new ArrayList<>();
    want.forEach(w -> kinds.add(w.get("kind").asText()));
    assertEquals(kinds, said.stream().map(Generator.Warning::kind).toList(), "warnings: " + said);
    for (int i = 0; i < said.size(); i++) {
      String text = said.get(i).message();
      for (JsonNode part : want.get(i).get("message_has")) {
        assertTrue(text.contains(part.asText()), "'" + part.asText() + "' is not in: " + text);
      }
    }
    assertThrows(UnsupportedOperationException.class, () -> said.add(null), "read-only");
  }

  /**
   * A call on IDs made elsewhere with no layout named. Java's decode, encode and range take a
   * {@link Layout} object, so that none is a {@code null} one: refused by the core with the case's
   * kind and message, as in the bindings that take the trio, not a bare NullPointerException.
   */
  static void runForIds(JsonNode c) {
    String call = c.get("for_ids").asText();
    Layout none = null;
    Executable made;
    switch (call) {
      case "decode":
        made = () -> Snowflake.decode(c.get("id").asText(), none);
        break;
      case "encode":
        made =
            () ->
                Snowflake.encode(
                    none,
                    Long.parseLong(c.get("time_ms").asText()),
                    VectorTest.fieldsOf(c.get("fields")));
        break;
      case "range":
        made =
            () ->
                Snowflake.range(
                    none,
                    Long.parseLong(c.get("t0_ms").asText()),
                    Long.parseLong(c.get("t1_ms").asText()));
        break;
      default:
        fail("unknown call " + call);
        return;
    }
    SnowflakeException e = assertThrows(SnowflakeException.class, made, call);
    assertEquals(c.get("error").asText(), e.statusName(), call);
    assertEquals(c.get("message").asText(), e.getMessage(), call);
  }

  static void runCall(JsonNode c) throws Throwable {
    Generator g = twitter().guard(false).build();
    g.close();
    String call = c.get("call").asText();
    Executable made;
    switch (call) {
      case "next_id":
        made = g::nextId;
        break;
      case "next_ids":
        made = () -> g.nextIds(10);
        break;
      case "stats":
        made = g::stats;
        break;
      case "close":
        made = g::close;
        break;
      default:
        fail("unknown call " + call);
        return;
    }
    if (c.has("error")) {
      VectorTest.expectError(c.get("error").asText(), made, call + " on a closed generator");
      try {
        made.execute();
      } catch (SnowflakeException e) {
        assertTrue(e.getMessage().contains("closed"), "the core's message: " + e.getMessage());
      }
    } else {
      made.execute();
    }
  }

  static void runTable(JsonNode c) throws Throwable {
    List<String> want = new ArrayList<>();
    c.get("names").forEach(n -> want.add(n.asText()));
    String table = c.get("table").asText();
    switch (table) {
      case "options":
        want.replaceAll(Facts::camelCase);
        assertEquals(want, Generator.options());
        break;
      case "errors":
        assertEquals(want, SnowflakeException.kinds());
        for (String kind : want) {
          Class<?> cls = Class.forName("io.snowflakec." + kind + "Exception");
          SnowflakeException e =
              assertInstanceOf(
                  SnowflakeException.class,
                  cls.getConstructor(String.class).newInstance("a message"));
          assertEquals(kind, e.statusName());
          assertEquals(kind, Facts.STATUSES.get(e.status()));
        }
        break;
      case "stats":
        try (Generator g = twitter().guard(false).build()) {
          assertEquals(want, List.copyOf(g.stats().asMap().keySet()));
        }
        break;
      case "describe":
        assertEquals(want, List.copyOf(Layout.preset("default").describe().keySet()));
        break;
      case "fields":
        for (Object f : (List<?>) Layout.preset("twitter").describe().get("fields")) {
          assertEquals(want, List.copyOf(((Map<?, ?>) f).keySet()));
        }
        break;
      default:
        fail("unknown table " + table);
    }
  }

  /** Every key of {@code want} has its value in {@code got}: numbers as numbers, ms as text. */
  static void matches(JsonNode want, Object got, String at) {
    if (want.isObject()) {
      Map<?, ?> map = assertInstanceOf(Map.class, got, at);
      Iterator<Map.Entry<String, JsonNode>> it = want.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        assertTrue(map.containsKey(e.getKey()), at + ": no key " + e.getKey() + " in " + map);
        matches(e.getValue(), map.get(e.getKey()), at + "." + e.getKey());
      }
    } else if (want.isNull()) {
      assertNull(got, at);
    } else if (want.isNumber()) {
      assertNotNull(got, at);
      assertEquals(want.asLong(), ((Number) got).longValue(), at);
    } else {
      assertEquals(want.asText(), String.valueOf(got), at);
    }
  }
}
