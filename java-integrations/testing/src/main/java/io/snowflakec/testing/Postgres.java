package io.snowflakec.testing;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server of the run: {@code java-integrations/with_postgres.py} starts one (a
 * throwaway cluster listening on a Unix socket only) and names its socket folder in the system
 * property {@value #PROPERTY}. Without it, the tests that need it are skipped, saying why.
 */
public final class Postgres {
  /** The system property naming the server's socket folder. */
  public static final String PROPERTY = "snowflakec.postgres.socket";

  private Postgres() {}

  /**
   * The JDBC URL of the server's {@code postgres} database as its superuser, or a skip of the
   * calling test when the run has no server.
   *
   * @return the URL
   */
  public static String jdbcUrl() {
    String folder = System.getProperty(PROPERTY, "");
    Assumptions.assumeFalse(
        folder.isBlank(),
        "no PostgreSQL server for this run: java-integrations/run-tests.sh starts one where"
            + " PostgreSQL 15 is installed (scripts/setup installs it); or give -D"
            + PROPERTY
            + "=<the socket folder of a running server>");
    Path socket = Path.of(folder, ".s.PGSQL.5432");
    if (!Files.exists(socket)) {
      throw new IllegalStateException(PROPERTY + " names no PostgreSQL socket: " + socket);
    }
    return "jdbc:postgresql://localhost/postgres?user=postgres&sslmode=disable&socketFactory="
        + UnixSocketFactory.class.getName()
        + "&socketFactoryArg="
        + URLEncoder.encode(socket.toString(), StandardCharsets.UTF_8);
  }
}
