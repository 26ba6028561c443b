package io.snowflakec;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The host of the core's lease protocol through JDBC: node values leased from PostgreSQL ({@code
 * node("worker", "lease")}, docs/leases.md).
 *
 * <p>The core owns the SQL, its parameters, the timings, the state machine and the fence; this
 * class only runs each statement the core hands out and hands the row (or the driver's failure)
 * back, as the CLI's libpq host (core/cli/lease.c) and Python's psycopg host do: the acquire before
 * the generator is made, the renewals on a daemon thread, the release after the generator is
 * closed. The connection is the caller's {@link DataSource} (a connection borrowed per statement)
 * or one kept open to a JDBC URL; the PostgreSQL JDBC driver ({@code org.postgresql:postgresql}) is
 * the application's.
 */
final class LeaseHost {
  private static final System.Logger LOG = System.getLogger(Generator.LOGGER);

  /** After a failure of its own, the renewer waits this long before it asks the core again. */
  private static final long SURPRISE_NS = TimeUnit.MILLISECONDS.toNanos(50);

  /** The connect timeout of a connection to a URL, in seconds. */
  private static final String CONNECT_TIMEOUT_S = "2";

  /** The core's statements with JDBC's {@code ?} for its {@code $n}, by their text. */
  private static final Map<String, Statement> STATEMENTS = new ConcurrentHashMap<>();

  /** The leases not yet closed: given back when the JVM shuts down. */
  private static final Set<Generator> OPEN = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (Generator g : OPEN) {
                    try {
                      g.close();
                    } catch (RuntimeException e) {
                      // the JVM is going: nothing is left to tell
                    }
                  }
                },
                "snowflake-c lease release"));
  }

  /** The native lease ({@code Native.make} of MAKE_LEASE): freed after its generator. */
  final long lease;

  private final DataSource dataSource; // or
  private final String url;
  private final Properties properties;
  private final long durationMs;

  private Connection conn; // kept open to the URL; used by one thread at a time
  private Thread renewer;
  private volatile boolean stop;
  private Generator generator; // kept reachable while the renewer runs

  private LeaseHost(long lease, DataSource dataSource, String url, Properties properties) {
    this.lease = lease;
    this.dataSource = dataSource;
    this.url = url;
    this.properties = properties;
    this.durationMs = (Long) stats().get("duration_ms");
  }

  /**
   * The host of a new native lease: its database the {@link DataSource} or URL given ({@code
   * database}), else {@code SNOWFLAKE_LEASE_URL}. Frees the lease when it cannot be hosted.
   */
  static LeaseHost of(long lease, Object database) {
    try {
      if (database instanceof DataSource ds) {
        return new LeaseHost(lease, ds, null, null);
      }
      String given = (String) database;
      if (given == null || given.isBlank()) {
        given = System.getenv("SNOWFLAKE_LEASE_URL");
      }
      if (given == null || given.isBlank()) {
        throw new InvalidArgumentException(
            "A node value 'lease' needs the database: give the builder lease(url) or"
                + " lease(dataSource), or set SNOWFLAKE_LEASE_URL.");
      }
      Properties props = new Properties();
      String jdbc = jdbcUrl(given.strip(), props);
      try {
        DriverManager.getDriver(jdbc);
      } catch (SQLException e) {
        throw new InvalidArgumentException(
            "A node value 'lease' runs its statements through the PostgreSQL JDBC driver, which is"
                + " not on the class path: add org.postgresql:postgresql to the application.");
      }
      // Statements time out at a third of the lease: a hung database must not hold renewals back.
      long durationMs = (Long) Facts.map(Native.leaseStats(lease)).get("duration_ms");
      props.putIfAbsent("connectTimeout", CONNECT_TIMEOUT_S);
      props.putIfAbsent("loginTimeout", CONNECT_TIMEOUT_S);
      props.putIfAbsent("options", "-c statement_timeout=" + durationMs / 3);
      props.putIfAbsent("ApplicationName", "snowflake-c");
      props.putIfAbsent("prepareThreshold", "0"); // plain statements: poolers in transaction mode
      return new LeaseHost(lease, null, jdbc, props);
    } catch (RuntimeException | Error e) {
      Native.leaseFree(lease);
      throw e;
    }
  }

  /**
   * A JDBC URL from the lease's URL: {@code jdbc:postgresql:…} as it is, {@code postgresql://} or
   * {@code postgres://} (libpq's, as the CLI and the other languages take) turned into one, its
   * user and password into {@code props}.
   */
  static String jdbcUrl(String given, Properties props) {
    if (given.startsWith("jdbc:postgresql:")) {
      return given;
    }
    String rest = null;
    for (String scheme : new String[] {"postgresql://", "postgres://"}) {
      if (given.startsWith(scheme)) {
        rest = given.substring(scheme.length());
      }
    }
    if (rest == null) {
      throw new InvalidArgumentException(
          "The lease database must be a jdbc:postgresql: or postgresql:// URL, or a DataSource"
              + " (libpq's key=value text is no JDBC URL).");
    }
    int end = rest.length();
    for (char c : new char[] {'/', '?'}) {
      int at = rest.indexOf(c);
      if (at >= 0 && at < end) {
        end = at;
      }
    }
    String authority = rest.substring(0, end);
    String tail = rest.substring(end);
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = authority.substring(0, at);
      authority = authority.substring(at + 1);
      int colon = userInfo.indexOf(':');
      String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
      if (!user.isEmpty()) {
        props.setProperty("user", decode(user));
      }
      if (colon >= 0) {
        props.setProperty("password", decode(userInfo.substring(colon + 1)));
      }
    }
    if (authority.isEmpty()) {
      authority = "localhost";
    }
    if (tail.isEmpty() || tail.startsWith("?")) {
      tail = "/" + tail;
    }
    return "jdbc:postgresql://" + authority + tail;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  // ---- One statement ------------------------------------------------------------------------

  /** A statement of the core with JDBC's {@code ?}: which parameter each {@code ?} takes. */
  private record Statement(String sql, int[] params) {
    static Statement of(String sql) {
      StringBuilder out = new StringBuilder(sql.length());
      List<Integer> params = new ArrayList<>();
      for (int i = 0; i < sql.length(); i++) {
        char c = sql.charAt(i);
        int j = i + 1;
        while (c == '$' && j < sql.length() && Character.isDigit(sql.charAt(j))) {
          j++;
        }
        if (c == '$' && j > i + 1) {
          params.add(Integer.parseInt(sql.substring(i + 1, j)) - 1);
          out.append('?');
          i = j - 1;
        } else {
          out.append(c);
        }
      }
      return new Statement(out.toString(), params.stream().mapToInt(Integer::intValue).toArray());
    }
  }

  private static String firstLine(Throwable e) {
    String text = e.getMessage();
    if (text == null || text.isBlank()) {
      text = e.getClass().getName();
    }
    return text.strip().lines().findFirst().orElse(text);
  }

  private Connection connection() throws SQLException {
    if (dataSource != null) {
      return dataSource.getConnection();
    }
    if (conn == null) {
      conn = DriverManager.getConnection(url, properties);
      conn.setAutoCommit(true);
    }
    return conn;
  }

  private void drop() {
    Connection c = conn;
    conn = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException | RuntimeException e) {
        // a broken connection has nothing left to say
      }
    }
  }

  /**
   * Runs the statement the core handed out ({@code q} as {@link Native#leaseDue}) and gives the
   * core its row; false when the database could not run it (the core retries it). Throws what the
   * core makes of the row.
   */
  private boolean run(Object[] q) {
    String[] params = (String[]) q[3];
    Statement st = STATEMENTS.computeIfAbsent((String) q[2], Statement::of);
    Connection c;
    try {
      c = connection();
    } catch (SQLException | RuntimeException e) {
      Native.leaseFailed(lease, "cannot connect to the lease database: " + firstLine(e));
      return false;
    }
    String[] row;
    try {
      row = execute(c, st, params);
    } catch (SQLException | RuntimeException e) {
      if (dataSource == null) {
        drop(); // a new connection for the next statement: this one may be broken
      }
      Native.leaseFailed(lease, "the lease database refused: " + firstLine(e));
      return false;
    } finally {
      if (dataSource != null) {
        try {
          c.close(); // back to the application's pool
        } catch (SQLException | RuntimeException e) {
          // the pool's to handle
        }
      }
    }
    Native.leaseDone(lease, row);
    return true;
  }

  /** The statement's first row as text, or null for none. */
  private String[] execute(Connection c, Statement st, String[] params) throws SQLException {
    boolean auto = c.getAutoCommit();
    String[] row = null;
    try (PreparedStatement ps = c.prepareStatement(st.sql())) {
      ps.setQueryTimeout((int) Math.max(1, (durationMs / 3 + 999) / 1000));
      for (int i = 0; i < st.params().length; i++) {
        String v = params[st.params()[i]];
        if (v == null) {
          ps.setNull(i + 1, Types.OTHER);
        } else {
          ps.setObject(i + 1, v, Types.OTHER); // untyped, as libpq's: the SQL casts
        }
      }
      boolean results = ps.execute();
      for (; ; ) {
        if (results) {
          try (ResultSet rs = ps.getResultSet()) {
            if (rs.next()) {
              row = new String[rs.getMetaData().getColumnCount()];
              for (int i = 0; i < row.length; i++) {
                row[i] = rs.getString(i + 1);
              }
            }
          }
          break;
        }
        if (ps.getUpdateCount() == -1) {
          break;
        }
        results = ps.getMoreResults();
      }
      if (!auto) {
        c.commit();
      }
    } catch (SQLException | RuntimeException e) {
      if (!auto) {
        try {
          c.rollback();
        } catch (SQLException | RuntimeException ignored) {
          // the statement's failure is what the core hears of
        }
      }
      throw e;
    }
    return row;
  }

  // ---- The life of the lease ----------------------------------------------------------------

  /**
   * Takes a value within the core's time (a lost race is tried again at once, a database that
   * cannot be reached with backoff); every value held, or no value in time, is {@link
   * WorkerUnavailableException}. Gives back what it took when it fails.
   */
  void acquire() {
    try {
      for (; ; ) {
        Object[] q = Native.leaseDue(lease);
        boolean ran = (Long) q[0] != 0;
        if (ran) {
          run(q);
        }
        if (Native.leaseAcquired(lease)) {
          return;
        }
        if (!ran) {
          long us = (Long) q[1]; // the core caps it
          try {
            Thread.sleep(us / 1000, (int) (us % 1000) * 1000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkerUnavailableException(
                "The acquire of a leased node value was interrupted.");
          }
        }
      }
    } catch (RuntimeException | Error e) {
      giveBack();
      throw e;
    }
  }

  /** Renews on a daemon thread until {@link #stopRenewer()}. */
  void start(Generator g) {
    generator = g;
    renewer = new Thread(this::renew, "snowflake-c lease");
    renewer.setDaemon(true);
    renewer.start();
    OPEN.add(g);
  }

  private void renew() {
    while (!stop) {
      try {
        Object[] q = Native.leaseDue(lease);
        if ((Long) q[0] == 0) {
          LockSupport.parkNanos(this, (Long) q[1] * 1000); // the core caps it
          continue;
        }
        run(q);
      } catch (LeaseExpiredException e) {
        LOG.log(System.Logger.Level.WARNING, "lease: " + e.getMessage());
      } catch (RuntimeException e) { // the renewer must outlive any surprise
        LOG.log(System.Logger.Level.ERROR, "lease: the renewer failed", e);
        LockSupport.parkNanos(this, SURPRISE_NS);
      }
    }
  }

  /**
   * Stops the renewer: a statement in flight ends within a third of the lease (its timeout) or the
   * 2 s of a connection attempt. True when it has stopped: past a lease, the database hangs, and
   * the value is left to expire (the lease is its renewer's until that statement returns).
   */
  boolean stopRenewer() {
    OPEN.remove(generator);
    stop = true;
    Thread t = renewer;
    if (t == null || t == Thread.currentThread()) {
      return t == null;
    }
    LockSupport.unpark(t);
    try {
      t.join(durationMs + 2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !t.isAlive();
  }

  /** Gives the value back with the generator's exact last tick (the generator closed first). */
  void giveBack() {
    try {
      Object[] q = Native.leaseRelease(lease);
      if (q != null) {
        run(q);
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "lease: the release failed: " + e.getMessage());
    } finally {
      drop();
    }
  }

  /** The lease's stats under the core's names (the CLI's {@code gen --stats --json}). */
  Map<String, Object> stats() {
    return Facts.map(Native.leaseStats(lease));
  }
}
