import io.snowflakec.Generator;
import io.snowflakec.IdRange;
import io.snowflakec.Layout;
import io.snowflakec.Parts;
import io.snowflakec.Snowflake;
import java.util.Map;

/** The examples of java/README.md, run by java/run-tests.sh against the packaged jar. */
public final class QuickStart {
  public static void main(String[] args) {
    try (Generator g =
        Generator.builder().preset("twitter").node("datacenter", 1).node("worker", 3).build()) {
      long id = g.nextId();
      long[] batch = g.nextIds(1000);
      Parts p = Snowflake.decode(id, g.layout());
      System.out.println("issued " + id + " at " + p.time() + ", worker " + p.get("worker"));
      System.out.println("batch " + batch[0] + " .. " + batch[999]);
      System.out.println("stats " + g.stats());
    }

    Layout discord = Layout.preset("discord");
    System.out.println(Snowflake.decode(175928847299117063L, discord).toJson());
    long id =
        Snowflake.encode(discord, 1462015105796L, Map.of("worker", 1L, "process", 0L, "seq", 7L));
    IdRange day = Snowflake.range(discord, 1462060800000L, 1462147200000L);
    System.out.println("encoded " + id + ", one day: " + day.min() + " .. " + day.max());

    Layout mine = Layout.parse("time:41@1ms,worker:10,seq:12", 1704067200000L);
    System.out.println(mine.describe());
  }
}
