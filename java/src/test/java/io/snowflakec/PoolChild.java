package io.snowflakec;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A separate JVM for {@link MultiJvmTest}: takes a worker from the pool in a state folder, writes
 * {@code count} IDs to a file, and prints its worker. Arguments: stateDir epochMs count outFile
 * [meetDir peers] (the epoch: the parent's {@link RunEpoch}): with a meeting folder, it holds its
 * generator until {@code peers} children have one, so that they are surely alive together.
 */
public final class PoolChild {
  public static void main(String[] args) throws Exception {
    long epoch = Long.parseLong(args[1]);
    int count = Integer.parseInt(args[2]);
    try (Generator g =
            Generator.builder()
                .layout(Layout.parse("time:41@1ms,worker:2,seq:12", epoch))
                .node("worker", "auto")
                .stateDir(Paths.get(args[0]))
                .build();
        DataOutputStream out =
            new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[3])))) {
      if (args.length > 4) {
        meet(Paths.get(args[4]), Integer.parseInt(args[5]), Paths.get(args[3]).getFileName());
      }
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

  /** Marks this child as holding a generator and waits (up to 60 s) for the others. */
  private static void meet(Path dir, int peers, Path name) throws Exception {
    Files.createDirectories(dir);
    Files.createFile(dir.resolve(name));
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (true) {
      try (var files = Files.list(dir)) {
        if (files.count() >= peers) {
          return;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the other children never took a generator");
      }
      Thread.sleep(5);
    }
  }
}
