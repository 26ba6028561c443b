package io.snowflakec;

/** A separate JVM for {@link MultiJvmTest}: loads the library and says what happened. */
public final class LoadProbe {
  public static void main(String[] args) {
    try {
      System.out.println("loaded " + Snowflake.version());
    } catch (UnsatisfiedLinkError e) {
      System.out.println(e.getMessage());
      System.exit(3);
    }
  }
}
