package io.snowflakec;

import java.nio.file.Paths;

/**
 * A separate JVM for {@link GuardTest}: builds one generator and keeps it until its standard input
 * closes (or it is killed). Arguments, each optional: {@code layout=SPEC} (with {@code epoch=MS};
 * default the twitter preset), {@code node.FIELD=TEXT} (as {@link Generator.Builder#node(String,
 * String)} takes it), {@code stateDir=DIR}, {@code guard=false}.
 *
 * <p>Prints one line once the generator exists, {@code held pid=P nodes={...} guard=TEXT}, or
 * {@code error pid=P STATUS: MESSAGE} if building it failed (exit status 3).
 */
public final class GuardHolder {
  public static void main(String[] args) throws Exception {
    long pid = ProcessHandle.current().pid();
    Generator g;
    try {
      g = builder(args).build();
    } catch (SnowflakeException e) {
      System.out.println("error pid=" + pid + " " + e.statusName() + ": " + e.getMessage());
      System.exit(3);
      return;
    }
    try (g) {
      Stats s = g.stats();
      System.out.println("held pid=" + pid + " nodes=" + s.nodes() + " guard=" + s.guard());
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold the generator until the test closes standard input
      }
    }
  }

  private static Generator.Builder builder(String[] args) {
    Generator.Builder b = Generator.builder();
    String spec = null;
    long epoch = 0;
    for (String arg : args) {
      int eq = arg.indexOf('=');
      String key = arg.substring(0, eq);
      String value = arg.substring(eq + 1);
      if (key.startsWith("node.")) {
        b.node(key.substring(5), value);
      } else {
        switch (key) {
          case "layout" -> spec = value;
          case "epoch" -> epoch = Long.parseLong(value);
          case "stateDir" -> b.stateDir(Paths.get(value));
          case "guard" -> b.guard(Boolean.parseBoolean(value));
          default -> throw new IllegalArgumentException("unknown argument " + arg);
        }
      }
    }
    return spec != null ? b.layout(Layout.parse(spec, epoch)) : b.preset("twitter");
  }
}
