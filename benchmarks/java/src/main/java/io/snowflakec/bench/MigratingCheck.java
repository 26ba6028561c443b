package io.snowflakec.bench;

import com.github.f4b6a3.tsid.Tsid;
import com.github.f4b6a3.tsid.TsidFactory;
import io.snowflakec.Layout;
import io.snowflakec.Parts;
import io.snowflakec.Snowflake;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import me.ahoo.cosid.converter.Radix62IdConverter;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeIdStateParser;
import me.ahoo.cosid.snowflake.SafeJavaScriptSnowflakeId;
import me.ahoo.cosid.snowflake.SecondSnowflakeId;
import me.ahoo.cosid.snowflake.SecondSnowflakeIdStateParser;
import me.ahoo.cosid.snowflake.SnowflakeId;
import me.ahoo.cosid.snowflake.SnowflakeIdState;
import me.ahoo.cosid.snowflake.SnowflakeIdStateParser;

/**
 * docs/migrating.md against tsid-creator's and CosId's own IDs: each row of the page's table for
 * those peers names the snowflake-c layout that reads their IDs; this makes IDs with the peer (its
 * defaults, a node value of ours), decodes them under the layout the row gives, and checks the time
 * and the fields against what the peer says of them (CosId's own parser; tsid-creator's time, the
 * node given, and its 13-character strings as {@code --from base32}; CosId's radix-62 strings as
 * {@code --from base62}). Exits non-zero on a difference; benchmarks/run runs it.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.snowflakec.bench.MigratingCheck docs/migrating.md}
 */
public final class MigratingCheck {
  private static int checked;

  private MigratingCheck() {}

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
    checked++;
  }

  /** The snowflake-c cell of the page's row whose peer cell holds {@code peer}. */
  static Layout rowLayout(List<String> lines, String peer) {
    for (String line : lines) {
      if (!line.startsWith("|")) {
        continue;
      }
      String[] cells = line.split("\\|");
      if (cells.length < 4 || !cells[1].contains(peer)) {
        continue;
      }
      Matcher m = Pattern.compile("`([^`]*)`").matcher(cells[cells.length - 1]);
      if (!m.find()) {
        throw new AssertionError("no command in the row of " + peer + ": " + line);
      }
      String[] flags = m.group(1).trim().split("\\s+");
      String preset = null;
      String spec = null;
      String epoch = null;
      for (int i = 0; i + 1 < flags.length; i++) {
        switch (flags[i]) {
          case "--preset" -> preset = flags[i + 1];
          case "--layout" -> spec = flags[i + 1];
          case "--epoch" -> epoch = flags[i + 1];
          default -> {}
        }
      }
      return preset != null ? Layout.preset(preset) : Layout.parse(spec, epoch);
    }
    throw new AssertionError("docs/migrating.md has no row for " + peer);
  }

  /** A CosId generator's IDs against its own parser, under the row's layout. */
  static void cosid(
      List<String> lines, String peer, SnowflakeId gen, SnowflakeIdStateParser parser) {
    Layout layout = rowLayout(lines, peer);
    for (int i = 0; i < 2000; i++) {
      long id = gen.generate();
      SnowflakeIdState want = parser.parse(id);
      Parts got = Snowflake.decode(id, layout);
      String where = peer + ": " + id + " under " + layout.spec();
      // CosId's time is a LocalDateTime at the parser's zone (UTC here), to its unit.
      check(
          LocalDateTime.ofEpochSecond(
                  Math.floorDiv(got.timeMs(), 1000),
                  (int) Math.floorMod(got.timeMs(), 1000) * 1_000_000,
                  ZoneOffset.UTC)
              .equals(want.getTimestamp()),
          where + ": time " + got.time() + ", CosId " + want.getTimestamp());
      check(got.get("machine") == want.getMachineId(), where + ": machine");
      check(got.get("seq") == want.getSequence(), where + ": seq");
      String text = Radix62IdConverter.PAD_START.asString(id);
      check(Snowflake.parse(text, "base62") == id, where + ": base62 " + text);
    }
  }

  public static void main(String[] args) throws IOException {
    Path page = Path.of(args.length > 0 ? args[0] : "docs/migrating.md");
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);

    // tsid-creator: its defaults, node 5 of 10 bits.
    Layout tsidLayout = rowLayout(lines, "[tsid-creator]");
    TsidFactory tsids = TsidFactory.builder().withNode(5).build();
    List<Tsid> made = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      made.add(tsids.create());
    }
    for (Tsid t : made) {
      Parts got = Snowflake.decode(t.toLong(), tsidLayout);
      String where = "tsid-creator: " + t + " under " + tsidLayout.spec();
      check(got.timeMs() == t.getUnixMilliseconds(), where + ": time");
      check(got.get("node") == 5, where + ": node");
      check(Snowflake.parse(t.toString(), "base32") == t.toLong(), where + ": base32");
    }

    int machine = 7;
    cosid(
        lines,
        "`MillisecondSnowflakeId`",
        new MillisecondSnowflakeId(machine),
        MillisecondSnowflakeIdStateParser.of(new MillisecondSnowflakeId(machine), ZoneOffset.UTC));
    SecondSnowflakeId second = new SecondSnowflakeId(machine);
    cosid(
        lines,
        "`SecondSnowflakeId`",
        second,
        SecondSnowflakeIdStateParser.of(second, ZoneOffset.UTC));
    MillisecondSnowflakeId safe = SafeJavaScriptSnowflakeId.ofMillisecond(machine);
    cosid(
        lines,
        "`SafeJavaScriptSnowflakeId.ofMillisecond`",
        safe,
        MillisecondSnowflakeIdStateParser.of(safe, ZoneOffset.UTC));

    System.out.println(
        "docs/migrating.md: "
            + checked
            + " checks of tsid-creator's and CosId's own IDs under the page's layouts");
  }
}
