package io.snowflakec;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.nio.file.Paths;

/**
 * A separate JVM for {@link MultiJvmTest}: takes a worker from the pool in a state folder, writes
 * {@code count} IDs to a file, and prints its worker. Arguments: stateDir count outFile.
 */
public final class PoolChild {
  public static void main(String[] args) throws Exception {
    int count = Integer.parseInt(args[1]);
    try (Generator g =
            Generator.builder()
                .layout(Layout.parse("time:41@1ms,worker:2,seq:12", 1704067200000L))
                .node("worker", "auto")
                .stateDir(Paths.get(args[0]))
                .build();
        DataOutputStream out =
            new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[2])))) {
      long[] buf = new long[1000];
      for (int done = 0; done < count; done += buf.length) {
        if (done % 2000 == 0) {
          for (int i = 0; i < buf.length; i++) {
            buf[i] = g.nextId();
          }
        } else {
          g.nextIds(buf);
        }
        for (long id : buf) {
          out.writeLong(id);
        }
      }
      Stats s = g.stats();
      System.out.println(
          "worker=" + s.nodes().get("worker") + " source=" + s.nodeSources().get("worker"));
    }
  }
}
