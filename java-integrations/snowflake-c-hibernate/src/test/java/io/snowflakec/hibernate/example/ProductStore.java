package io.snowflakec.hibernate.example;

import io.snowflakec.Generator;
import io.snowflakec.hibernate.SnowflakeIdGenerators;
import java.nio.file.Path;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/** Products in a database, their keys from one snowflake-c generator. */
public final class ProductStore implements AutoCloseable {
  private final Generator ids;
  private final SessionFactory sessions;

  /**
   * Opens the store.
   *
   * @param jdbcUrl the database (H2, PostgreSQL, ...)
   * @param worker this process's worker: a number, or "auto" for a free value of the host's pool
   * @param stateDir the folder of the pool and of the generator's persisted state
   */
  public ProductStore(String jdbcUrl, String worker, Path stateDir) {
    // One generator per process, its node value its own; registered before the first insert.
    ids =
        Generator.builder()
            .preset("twitter")
            .node("datacenter", 1)
            .node("worker", worker)
            .stateDir(stateDir)
            .build();
    SnowflakeIdGenerators.register(ids);
    sessions =
        new Configuration()
            .addAnnotatedClass(Product.class)
            .setProperty("hibernate.connection.url", jdbcUrl)
            // Creates the table when it is missing; processes sharing the database keep it.
            .setProperty("hibernate.hbm2ddl.auto", "update")
            .buildSessionFactory();
  }

  public long worker() {
    return ids.stats().nodes().get("worker");
  }

  public long add(String name) {
    return sessions.fromTransaction(
        session -> {
          Product product = new Product(name);
          session.persist(product);
          return product.getId();
        });
  }

  public Product find(long id) {
    return sessions.fromTransaction(session -> session.find(Product.class, id));
  }

  public List<Long> allIds() {
    return sessions.fromTransaction(
        session -> session.createQuery("select p.id from Product p", Long.class).getResultList());
  }

  @Override
  public void close() {
    sessions.close();
    SnowflakeIdGenerators.unregister(SnowflakeIdGenerators.DEFAULT, ids);
    ids.close();
  }
}
