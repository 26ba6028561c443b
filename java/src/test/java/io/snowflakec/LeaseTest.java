package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Node values leased from PostgreSQL (docs/leases.md) through the JDBC host, against a real server
 * ({@link PgServer}): acquire, distinct values for two holders (in this JVM and in another), the
 * stats, the release on close, no database, and the fence while the database is away.
 */
class LeaseTest {
  private static final String SPEC = "time:41@1ms,worker:10,seq:12";
  private static final long EPOCH = 1704067200000L;

  private static PgServer pg;

  @BeforeAll
  static void server() throws Exception {
    pg = PgServer.start();
    assertTrue(Snowflake.leaseTableSql().contains("CREATE TABLE IF NOT EXISTS snowflake_c_leases"));
    pg.execute(Snowflake.leaseTableSql());
    pg.execute(Snowflake.leaseTableSql()); // a no-op the second time
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  @BeforeEach
  void emptyTable() throws Exception {
    pg.execute("DELETE FROM snowflake_c_leases");
  }

  private static Generator.Builder leased(String key) {
    return Generator.builder().layout(SPEC).epoch(EPOCH).node("worker", "lease").leaseKey(key);
  }

  private static long worker(Generator g, long id) {
    return Snowflake.decode(id, g.layout()).get("worker");
  }

  /** The holder of a value in the table, or null when it has no row. */
  private static String holder(long node) throws Exception {
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT holder FROM snowflake_c_leases WHERE node = ? AND expires_at > now()")) {
      ps.setLong(1, node);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  @Test
  void acquiresShowsTheLeaseAndGivesItBackOnClose() throws Exception {
    long value;
    try (Generator a = leased("a").lease(pg.jdbcUrl()).build();
        Generator b = leased("b").lease(pg.dataSource()).build()) {
      long idA = a.nextId();
      long idB = b.nextId();
      value = worker(a, idA);
      assertNotEquals(value, worker(b, idB), "two holders got one value");
      assertEquals("a", holder(value));
      assertEquals("b", holder(worker(b, idB)));

      Map<String, Object> lease = a.stats().lease().orElseThrow();
      assertEquals("held", lease.get("state"));
      assertEquals("worker", lease.get("field"));
      assertEquals(value, lease.get("value"));
      long now = System.currentTimeMillis();
      long expires = (Long) lease.get("expires_ms");
      assertTrue(expires > now && expires <= now + 15_000, "expires_ms " + expires);
      assertEquals(15_000L, lease.get("duration_ms"));
      assertEquals(0L, lease.get("failures"));
      assertEquals(Map.of("worker", value), a.stats().nodes());
      assertEquals(lease, a.stats().asMap().get("lease"));
    }
    assertNull(holder(value), "close gave the value back");
    // The same key takes its value again; a generator of its own value has no lease.
    try (Generator again = leased("a").lease(pg.jdbcUrl()).build()) {
      assertEquals(value, worker(again, again.nextId()));
    }
    try (Generator plain =
        Generator.builder().layout(SPEC).epoch(EPOCH).node("worker", 5).build()) {
      assertTrue(plain.stats().lease().isEmpty());
      assertNull(plain.stats().asMap().get("lease"));
    }
  }

  @Test
  void twoJvmsGetDistinctValues() throws Exception {
    twoJvms(Map.of(), pg.jdbcUrl());
  }

  /** SNOWFLAKE_WORKER=lease, and SNOWFLAKE_LEASE_URL as libpq's URL (a postgresql:// one). */
  @Test
  void theEnvironmentGivesTheWorkerAndTheDatabase() throws Exception {
    String libpq = pg.jdbcUrl().replace("jdbc:postgresql://", "postgresql://");
    twoJvms(Map.of("SNOWFLAKE_WORKER", "lease", "SNOWFLAKE_LEASE_URL", libpq), "-");
  }

  private static void twoJvms(Map<String, String> env, String database) throws Exception {
    Process child =
        MultiJvmTest.child(env, List.of(), LeaseChild.class.getName(), database, SPEC, "child");
    try {
      String line =
          new java.io.BufferedReader(
                  new java.io.InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
              .readLine();
      assertTrue(line != null && line.startsWith("worker="), "child said: " + line);
      long theirs = Long.parseLong(line.substring("worker=".length()).strip());
      try (Generator mine = leased("parent").lease(pg.jdbcUrl()).build()) {
        assertNotEquals(theirs, worker(mine, mine.nextId()));
        assertEquals("child", holder(theirs));
      }
    } finally {
      child.getOutputStream().close(); // the child closes its generator and ends
      assertEquals(0, child.waitFor());
    }
  }

  @Test
  void postgresqlUrlsBecomeJdbcUrls() {
    Properties props = new Properties();
    assertEquals(
        "jdbc:postgresql://db.internal:5433/app?sslmode=require",
        LeaseHost.jdbcUrl("postgresql://ids:s%40cret@db.internal:5433/app?sslmode=require", props));
    assertEquals("ids", props.getProperty("user"));
    assertEquals("s@cret", props.getProperty("password"));
    props.clear();
    assertEquals("jdbc:postgresql://db/", LeaseHost.jdbcUrl("postgres://db", props));
    assertTrue(props.isEmpty());
    assertEquals("jdbc:postgresql:app", LeaseHost.jdbcUrl("jdbc:postgresql:app", props));
    InvalidArgumentException e =
        assertThrows(
            InvalidArgumentException.class, () -> LeaseHost.jdbcUrl("host=db dbname=app", props));
    assertTrue(e.getMessage().contains("jdbc:postgresql:"), e.getMessage());
  }

  @Test
  void noDatabaseGiven() {
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("SNOWFLAKE_LEASE_URL") == null);
    InvalidArgumentException e =
        assertThrows(InvalidArgumentException.class, () -> leased("x").build());
    assertTrue(e.getMessage().contains("lease(url)"), e.getMessage());
  }

  @Test
  void noDatabaseIsWorkerUnavailableWithinALease(@org.junit.jupiter.api.io.TempDir Path tmp) {
    String nowhere =
        "jdbc:postgresql://localhost/postgres?user=postgres&socketFactory="
            + UnixSocketFactory.class.getName()
            + "&socketFactoryArg="
            + tmp.resolve(".s.PGSQL.5432");
    long t0 = System.nanoTime();
    WorkerUnavailableException e =
        assertThrows(
            WorkerUnavailableException.class,
            () -> leased("x").lease(nowhere).leaseDuration(Duration.ofSeconds(1)).build());
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms < 5_000, "gave up after " + ms + " ms");
    assertTrue(e.getMessage().contains("cannot connect to the lease database"), e.getMessage());
  }

  @Test
  void expiresWhileTheDatabaseIsAwayAndResumesAfter() throws Exception {
    try (Generator g =
        leased("fenced").lease(pg.jdbcUrl()).leaseDuration(Duration.ofSeconds(1)).build()) {
      long value = worker(g, g.nextId());
      pg.stop();
      try {
        Thread.sleep(1_500);
        LeaseExpiredException e = assertThrows(LeaseExpiredException.class, g::nextId);
        assertTrue(e.getMessage().contains("lease"), e.getMessage());
        assertThrows(LeaseExpiredException.class, () -> g.nextIds(10));
        assertTrue((Long) g.stats().lease().orElseThrow().get("failures") > 0);
      } finally {
        pg.start(true);
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      Long id = null;
      while (id == null && System.nanoTime() < deadline) {
        try {
          id = g.nextId();
        } catch (LeaseExpiredException e) {
          Thread.sleep(50);
        }
      }
      assertTrue(id != null, "no ID 10 s after the database came back");
      assertEquals(value, worker(g, id));
      assertEquals("held", g.stats().lease().orElseThrow().get("state"));
    }
  }
}
