package io.snowflakec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.logging.Logger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * A throwaway PostgreSQL server for the lease tests, as tests/postgres/pgserver.py makes one:
 * initdb in a temporary folder, a Unix socket there and no TCP port, run by {@code nobody} when the
 * tests run as root; stopped and started again by the tests, removed by {@link #close()}. Skips the
 * calling test where PostgreSQL 15 is not installed ({@code PG_BIN}, by default Debian's {@code
 * /usr/lib/postgresql/15/bin}; scripts/setup installs it).
 */
final class PgServer implements AutoCloseable {
  private static final String RUN_AS = "nobody";

  private final Path bin;
  private final Path root;
  private final Path data;
  private final Path socketDir;
  private final Path log;
  private boolean running;

  private PgServer(Path bin) throws IOException {
    this.bin = bin;
    this.root = Files.createTempDirectory("sfc-java-pg-");
    this.data = root.resolve("data");
    this.socketDir = Files.createDirectory(root.resolve("socket"));
    this.log = Files.createFile(root.resolve("server.log"));
  }

  /** A running server, or a skip of the calling test where PostgreSQL is not installed. */
  static PgServer start() throws Exception {
    Path bin = Path.of(System.getenv().getOrDefault("PG_BIN", "/usr/lib/postgresql/15/bin"));
    Assumptions.assumeTrue(
        Files.isRegularFile(bin.resolve("initdb")),
        "no PostgreSQL in "
            + bin
            + " (scripts/setup installs postgresql-15; PG_BIN names another): the lease tests"
            + " need one");
    PgServer pg = new PgServer(bin);
    try {
      pg.init();
      pg.start(true);
    } catch (Exception | Error e) {
      pg.close();
      throw e;
    }
    return pg;
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  private void init() throws Exception {
    if (root()) {
      UserPrincipal nobody =
          root.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(RUN_AS);
      for (Path p : List.of(root, socketDir, log)) {
        Files.setOwner(p, nobody);
      }
    }
    run(
        List.of(
            bin.resolve("initdb").toString(),
            "-D",
            data.toString(),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8"));
    try (PrintWriter conf =
        new PrintWriter(
            Files.newBufferedWriter(
                data.resolve("postgresql.conf"),
                StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.APPEND))) {
      conf.println();
      conf.println("listen_addresses = ''");
      conf.println("unix_socket_directories = '" + socketDir + "'");
      conf.println("fsync = 'off'");
      conf.println("timezone = 'UTC'");
    }
  }

  /** Starts the server and waits until it takes connections. */
  void start(boolean wait) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", log.toString()));
    cmd.addAll(wait ? List.of("-w", "-t", "60", "start") : List.of("start"));
    run(cmd);
    running = true;
  }

  /** Stops the server (its clients see their connections end). */
  void stop() throws Exception {
    if (running) {
      run(
          List.of(
              bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "stop"));
      running = false;
    }
  }

  private void run(List<String> argv) throws IOException {
    List<String> cmd = new ArrayList<>();
    if (root()) {
      cmd.addAll(List.of("runuser", "-u", RUN_AS, "--"));
    }
    cmd.addAll(argv);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("SNOWFLAKE_") || k.startsWith("PG"));
    pb.environment().put("LC_ALL", "C.UTF-8");
    pb.environment().put("TZ", "UTC");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int status;
    try {
      status = p.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    if (status != 0) {
      throw new IllegalStateException(String.join(" ", argv) + " failed:\n" + out + log());
    }
  }

  private String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  /** The JDBC URL of the {@code postgres} database as its superuser, over the Unix socket. */
  String jdbcUrl() {
    return "jdbc:postgresql://localhost/postgres?user=postgres&sslmode=disable&socketFactory="
        + UnixSocketFactory.class.getName()
        + "&socketFactoryArg="
        + URLEncoder.encode(socketDir.resolve(".s.PGSQL.5432").toString(), StandardCharsets.UTF_8);
  }

  /** A {@link DataSource} over {@link #jdbcUrl()}: a new connection each time. */
  DataSource dataSource() {
    String url = jdbcUrl();
    return new DataSource() {
      @Override
      public Connection getConnection() throws SQLException {
        return DriverManager.getConnection(url);
      }

      @Override
      public Connection getConnection(String user, String password) throws SQLException {
        return DriverManager.getConnection(url, user, password);
      }

      @Override
      public PrintWriter getLogWriter() {
        return null;
      }

      @Override
      public void setLogWriter(PrintWriter out) {}

      @Override
      public void setLoginTimeout(int seconds) {}

      @Override
      public int getLoginTimeout() {
        return 0;
      }

      @Override
      public Logger getParentLogger() {
        return Logger.getGlobal();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) {
        return false;
      }
    };
  }

  /** Runs SQL on a connection of its own. */
  void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl());
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      if (running) {
        run(
            List.of(
                bin.resolve("pg_ctl").toString(),
                "-D",
                data.toString(),
                "-m",
                "immediate",
                "-w",
                "stop"));
        running = false;
      }
    } finally {
      try (Stream<Path> all = Files.walk(root)) {
        all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
