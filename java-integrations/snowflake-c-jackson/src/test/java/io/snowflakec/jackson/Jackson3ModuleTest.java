package io.snowflakec.jackson;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.snowflakec.jackson.example.Mappers;
import io.snowflakec.jackson.example.Message;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.json.JsonMapper;

class Jackson3ModuleTest extends JsonIdTestCases {
  private final JsonMapper mapper = Mappers.jackson3();

  @Override
  String write(Message m) {
    return mapper.writeValueAsString(m);
  }

  @Override
  Message read(String json) {
    return mapper.readValue(json, Message.class);
  }

  @Override
  String text(long id) {
    return Long.toString(id); // the plain decimal, computed without the module
  }

  @Test
  void writes() throws Exception {
    writesIdsAsStringsAndOtherLongsAsNumbers();
  }

  @Test
  void reads() throws Exception {
    readsStringsAndNumbers();
  }

  @Test
  void roundTrip() throws Exception {
    roundTrips();
  }

  @Test
  void refusesTextThatIsNoId() {
    DatabindException e = assertThrows(DatabindException.class, () -> read("{\"id\":\"12a\"}"));
    assertTrue(e.getMessage().contains("12a"), e.getMessage());
    assertThrows(DatabindException.class, () -> read("{\"id\":\"18446744073709551616\"}"));
  }
}
