package io.snowflakec.hibernate;

import io.snowflakec.hibernate.example.ProductStore;
import io.snowflakec.testing.ChildJvm;
import io.snowflakec.testing.WriterReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One process of {@link SnowflakeIdPostgresTest}: a {@link ProductStore} whose worker comes from
 * the host's pool, which adds products once its peers hold their workers too. Arguments: jdbcUrl
 * stateDir rows meetDir peers report.
 */
public final class ProductWriter {
  public static void main(String[] args) throws Exception {
    int rows = Integer.parseInt(args[2]);
    Path report = Path.of(args[5]);
    try (ProductStore store = new ProductStore(args[0], "auto", Path.of(args[1]))) {
      ChildJvm.meet(Path.of(args[3]), report.getFileName().toString(), Integer.parseInt(args[4]));
      List<Long> keys = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        keys.add(store.add("product of worker " + store.worker() + " #" + i));
      }
      new WriterReport(store.worker(), keys).write(report);
    }
  }
}
