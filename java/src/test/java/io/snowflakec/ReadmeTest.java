package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What java/README.md says a call gives is what the call gives. */
class ReadmeTest {
  static String readme() throws IOException {
    Path here = Paths.get("README.md");
    assertTrue(Files.exists(here), "the tests run in java/, beside README.md");
    return Files.readString(here, StandardCharsets.UTF_8);
  }

  /**
   * The "Generate" example: one ID, a batch of 1000, an array of 4096 filled, then {@code
   * s.asMap()}, whose comment shows the counters that gives. Its twitter fields run at this run's
   * own epoch, the guard off, so that no other generator of the machine meets them; the counts do
   * not depend on either.
   */
  @Test
  void theGenerateExampleShowsTheStatsItGives() throws IOException {
    String text = readme();
    int at = text.indexOf("## Generate");
    assertTrue(at >= 0, "README.md has a Generate section");
    String block = text.substring(at, text.indexOf("```\n", text.indexOf("```java", at) + 7));
    assertTrue(block.contains("long id = g.nextId();"), block);
    assertTrue(block.contains("long[] ids = g.nextIds(1000);"), block);
    assertTrue(block.contains("long[] buf = new long[4096];"), block);
    assertTrue(block.contains("g.nextIds(buf);"), block);
    Matcher shown = Pattern.compile("s\\.asMap\\(\\);\\s*// \\{(.*)\\}").matcher(block);
    assertTrue(shown.find(), "the asMap() line shows its map: " + block);

    Map<String, Object> got;
    try (Generator g =
        Generator.builder()
            .layout(RunEpoch.layout("time:41@1ms,datacenter:5,worker:5,seq:12"))
            .node("datacenter", 1)
            .node("worker", 3)
            .guard(false)
            .build()) {
      g.nextId();
      g.nextIds(1000);
      g.nextIds(new long[4096]);
      got = g.stats().asMap();
    }
    // Each key=value the comment shows is a key of the map (not the elided ones, nor the guard's
    // claim, which is the generator's own), and ids_issued its count.
    Matcher pair = Pattern.compile("(\\w+)=(\\d+)(?=[,}]|$)").matcher(shown.group(1));
    int checked = 0;
    while (pair.find()) {
      String key = pair.group(1);
      if (key.equals("datacenter") || key.equals("worker")) {
        continue; // inside node={…}, below
      }
      assertTrue(got.containsKey(key), key + " is not a stats key: " + got.keySet());
      if (key.equals("ids_issued")) { // the others (waits) depend on the clock
        assertEquals(pair.group(2), String.valueOf(got.get(key)), key + " as the README shows it");
        checked++;
      }
    }
    assertEquals(1, checked, "the comment shows ids_issued: " + shown.group(1));
    assertTrue(
        shown.group(1).contains("node={datacenter=1, worker=3}"), "node as asMap() prints it");
    assertEquals("{datacenter=1, worker=3}", String.valueOf(got.get("node")));
  }
}
