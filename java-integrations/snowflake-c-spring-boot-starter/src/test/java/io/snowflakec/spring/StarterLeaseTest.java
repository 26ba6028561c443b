package io.snowflakec.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.snowflakec.Generator;
import io.snowflakec.Snowflake;
import io.snowflakec.spring.example.ShopApplication;
import io.snowflakec.testing.Postgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A worker leased from PostgreSQL (docs/leases.md): the application's DataSource is the lease's
 * database, and closing the context gives the value back.
 */
class StarterLeaseTest {
  @Test
  void aLeasedWorkerFromTheApplicationsDataSource() throws Exception {
    String url = Postgres.jdbcUrl();
    // The table, as `snowflake-c lease init` or a migration makes it.
    try (Connection db = DriverManager.getConnection(url);
        Statement ddl = db.createStatement()) {
      ddl.execute(
          Files.readString(Path.of("..", "..", "sql", "leases.sql"), StandardCharsets.UTF_8));
      ddl.execute("DELETE FROM snowflake_c_leases");
    }
    long worker;
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ShopApplication.class)
            .run(
                "--snowflake-c.node.worker=lease",
                "--snowflake-c.lease-key=shop-0",
                "--snowflake-c.lease-duration=3s",
                "--spring.datasource.url=" + url,
                "--spring.jpa.hibernate.ddl-auto=none")) {
      Generator generator = context.getBean(Generator.class);
      worker = Snowflake.decode(generator.nextId(), generator.layout()).get("worker");
      Map<String, Object> lease = generator.stats().lease().orElseThrow();
      assertEquals("held", lease.get("state"));
      assertEquals(worker, lease.get("value"));
      assertEquals(3000L, lease.get("duration_ms"));
      assertEquals("shop-0", holder(url, worker));
    }
    assertEquals(null, holder(url, worker), "the context's close gave the value back");
    assertTrue(worker >= 0 && worker < 32);
  }

  @Test
  void snowflakeCLeaseUrlOverTheDataSource() throws Exception {
    String url = Postgres.jdbcUrl();
    try (Connection db = DriverManager.getConnection(url);
        Statement ddl = db.createStatement()) {
      ddl.execute(
          Files.readString(Path.of("..", "..", "sql", "leases.sql"), StandardCharsets.UTF_8));
      ddl.execute("DELETE FROM snowflake_c_leases");
    }
    // The application's DataSource is H2 (application.properties): the lease goes to the URL.
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ShopApplication.class)
            .run(
                "--snowflake-c.node.worker=lease",
                "--snowflake-c.lease-key=shop-url",
                "--snowflake-c.lease-url=" + url,
                "--spring.datasource.url=jdbc:h2:mem:lease-url")) {
      Generator generator = context.getBean(Generator.class);
      long worker = Snowflake.decode(generator.nextId(), generator.layout()).get("worker");
      assertEquals("shop-url", holder(url, worker));
    }
  }

  private static String holder(String url, long node) throws Exception {
    try (Connection db = DriverManager.getConnection(url);
        Statement s = db.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT holder FROM snowflake_c_leases WHERE node = "
                    + node
                    + " AND expires_at > now()")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
