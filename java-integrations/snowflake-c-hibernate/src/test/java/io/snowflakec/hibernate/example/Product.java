package io.snowflakec.hibernate.example;

import io.snowflakec.hibernate.SnowflakeId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "products")
public class Product {
  @Id @SnowflakeId private Long id;

  private String name;

  protected Product() {}

  public Product(String name) {
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }
}
