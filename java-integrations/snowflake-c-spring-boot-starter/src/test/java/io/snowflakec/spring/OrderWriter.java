package io.snowflakec.spring;

import io.snowflakec.Generator;
import io.snowflakec.spring.example.Order;
import io.snowflakec.spring.example.OrderRepository;
import io.snowflakec.spring.example.ShopApplication;
import io.snowflakec.testing.ChildJvm;
import io.snowflakec.testing.WriterReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One process of {@link StarterPostgresTest}: the example application with the profile "postgres"
 * (its worker from the host's pool), which saves orders once its peers run too. Arguments: jdbcUrl
 * stateDir rows meetDir peers report.
 */
public final class OrderWriter {
  public static void main(String[] args) throws Exception {
    int rows = Integer.parseInt(args[2]);
    Path report = Path.of(args[5]);
    try (ConfigurableApplicationContext context =
        SpringApplication.run(
            ShopApplication.class,
            "--spring.profiles.active=postgres",
            // The test's server and state folder, over the profile's.
            "--spring.datasource.url=" + args[0],
            "--spring.datasource.username=postgres",
            "--snowflake-c.state-dir=" + args[1],
            "--spring.main.banner-mode=off")) {
      ChildJvm.meet(Path.of(args[3]), report.getFileName().toString(), Integer.parseInt(args[4]));
      OrderRepository orders = context.getBean(OrderRepository.class);
      long worker = context.getBean(Generator.class).stats().nodes().get("worker");
      List<Long> keys = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        keys.add(orders.save(new Order("item of worker " + worker + " #" + i)).getId());
      }
      new WriterReport(worker, keys).write(report);
    }
  }
}
