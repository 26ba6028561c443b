package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The canonical JSON of {@link Parts#toJson()} is byte for byte the C command line tool's ({@code
 * snowflake-c decode --json}), for every decode vector and for freshly issued IDs of every preset.
 * The tool's path is the system property {@code snowflakec.cli}.
 */
class CliJsonTest {
  static Path cli;

  @BeforeAll
  static void findCli() {
    String p = System.getProperty("snowflakec.cli");
    assertTrue(
        p != null && Files.isExecutable(Paths.get(p)),
        "the C command line tool is missing (system property snowflakec.cli = "
            + p
            + "): build it with meson, as java/run-tests.sh does");
    cli = Paths.get(p);
  }

  static List<String> cliDecode(List<String> layoutArgs, List<Long> ids)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(cli.toString());
    cmd.add("decode");
    cmd.addAll(layoutArgs);
    cmd.add("--json");
    Process proc = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String input = ids.stream().map(String::valueOf).collect(Collectors.joining("\n", "", "\n"));
    proc.getOutputStream().write(input.getBytes(StandardCharsets.US_ASCII));
    proc.getOutputStream().close();
    String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, proc.waitFor(), "exit status of " + cmd);
    return out.lines().collect(Collectors.toList());
  }

  static List<String> argsOf(JsonNode ref) {
    if (ref.has("preset")) {
      return List.of("--preset", ref.get("preset").asText());
    }
    return List.of("--layout", ref.get("spec").asText(), "--epoch", ref.get("epoch").asText());
  }

  @Test
  void decodeVectorsMatchTheCli() throws Exception {
    JsonNode cases =
        VectorTest.JSON.readTree(VectorTest.vectorDir().resolve("decode.json").toFile());
    Map<List<String>, List<Long>> byLayout = new LinkedHashMap<>();
    int n = 0;
    for (JsonNode c : cases) {
      if (c.has("error") || VectorTest.aboveLong(c.get("id").asText())) {
        continue;
      }
      byLayout
          .computeIfAbsent(argsOf(c.get("layout")), k -> new ArrayList<>())
          .add(Long.parseLong(c.get("id").asText()));
      n++;
    }
    assertTrue(n > 10, "decode.json has passing cases");
    for (Map.Entry<List<String>, List<Long>> e : byLayout.entrySet()) {
      Layout layout =
          e.getKey().get(0).equals("--preset")
              ? Layout.preset(e.getKey().get(1))
              : Layout.parse(e.getKey().get(1), e.getKey().get(3));
      List<String> lines = cliDecode(e.getKey(), e.getValue());
      assertEquals(e.getValue().size(), lines.size(), "one line per ID");
      for (int i = 0; i < lines.size(); i++) {
        assertEquals(lines.get(i), Snowflake.decode(e.getValue().get(i), layout).toJson());
      }
    }
  }

  @Test
  void issuedIdsMatchTheCli() throws Exception {
    for (String preset : Layout.presets()) {
      Layout layout = Layout.preset(preset);
      if (layout.timeEndMs() <= System.currentTimeMillis()) {
        continue; // baidu: decode only
      }
      Generator.Builder b = Generator.builder().layout(layout).guard(false);
      for (Layout.Field f : layout.fields()) {
        if (f.kind() == Layout.Kind.NODE) {
          b.node(f.name(), f.max());
        }
      }
      List<Long> ids = new ArrayList<>();
      try (Generator g = b.build()) {
        for (long id : g.nextIds(300)) {
          ids.add(id);
        }
        ids.add(g.nextId());
      }
      List<String> lines = cliDecode(List.of("--preset", preset), ids);
      assertEquals(ids.size(), lines.size());
      for (int i = 0; i < ids.size(); i++) {
        assertEquals(lines.get(i), Snowflake.decode(ids.get(i), layout).toJson(), preset);
      }
    }
  }
}
