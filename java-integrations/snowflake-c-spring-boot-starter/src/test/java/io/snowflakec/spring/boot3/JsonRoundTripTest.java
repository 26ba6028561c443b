package io.snowflakec.spring.boot3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.snowflakec.spring.Meters;
import io.snowflakec.spring.example.Order;
import io.snowflakec.spring.example.OrderRepository;
import io.snowflakec.spring.example.ShopApplication;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** A saved order through the mapper that Spring Boot 3 configures: its ID as a string. */
@SpringBootTest(classes = {ShopApplication.class, Meters.class})
class JsonRoundTripTest {
  @Autowired OrderRepository orders;
  @Autowired com.fasterxml.jackson.databind.ObjectMapper mapper;

  @Test
  void idsAreWrittenAsStringsAndReadBack() throws Exception {
    Order saved = orders.save(new Order("tea"));
    long id = saved.getId();
    String json = mapper.writeValueAsString(saved);
    assertTrue(json.contains("\"id\":\"" + Long.toUnsignedString(id) + "\""), json);
    assertEquals(id, mapper.readValue(json, Order.class).getId());
    Order fromNumber = mapper.readValue("{\"id\":" + id + ",\"item\":\"tea\"}", Order.class);
    assertEquals(id, fromNumber.getId());
    assertEquals("tea", orders.findById(fromNumber.getId()).orElseThrow().getItem());
  }
}
