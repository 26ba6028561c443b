package io.snowflakec.spring.example;

import io.snowflakec.hibernate.SnowflakeId;
import io.snowflakec.jackson.JsonSnowflakeId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "orders")
public class Order {
  @Id @SnowflakeId @JsonSnowflakeId private Long id;

  private String item;

  protected Order() {}

  public Order(String item) {
    this.item = item;
  }

  public Long getId() {
    return id;
  }

  public String getItem() {
    return item;
  }
}
