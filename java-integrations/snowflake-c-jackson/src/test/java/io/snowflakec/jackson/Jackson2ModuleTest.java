package io.snowflakec.jackson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.snowflakec.jackson.example.Mappers;
import io.snowflakec.jackson.example.Message;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class Jackson2ModuleTest extends JsonIdTestCases {
  private static final String BASE62 =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

  private final ObjectMapper mapper = Mappers.jackson2Base62();

  @Override
  String write(Message m) throws Exception {
    return mapper.writeValueAsString(m);
  }

  @Override
  Message read(String json) throws Exception {
    return mapper.readValue(json, Message.class);
  }

  /** Base62 at 11 characters, computed here without the core. */
  @Override
  String text(long id) {
    StringBuilder s = new StringBuilder();
    BigInteger n = BigInteger.valueOf(id);
    BigInteger radix = BigInteger.valueOf(62);
    for (int i = 0; i < 11; i++) {
      BigInteger[] qr = n.divideAndRemainder(radix);
      s.append(BASE62.charAt(qr[1].intValue()));
      n = qr[0];
    }
    return s.reverse().toString();
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
  void readsTheShortestFormToo() throws Exception {
    assertEquals(61, read("{\"id\":\"z\"}").id);
  }

  @Test
  void refusesTextThatIsNoId() {
    assertThrows(JsonMappingException.class, () -> read("{\"id\":\"12-a\"}"));
  }
}
