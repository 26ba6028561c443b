package io.snowflakec.jackson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.snowflakec.jackson.example.Message;

/** What both modules must do, each test class giving its mapper's write and read. */
abstract class JsonIdTestCases {
  /** The Discord documentation's example ID. */
  static final long DISCORD = 175928847299117063L;

  abstract String write(Message m) throws Exception;

  abstract Message read(String json) throws Exception;

  /** The string the mapper writes for an ID. */
  abstract String text(long id);

  static Message message(long id, Long replyTo) {
    Message m = new Message();
    m.id = id;
    m.replyTo = replyTo;
    m.likes = 1L << 60;
    m.text = "hi";
    return m;
  }

  void writesIdsAsStringsAndOtherLongsAsNumbers() throws Exception {
    String json = write(message(DISCORD, Long.MAX_VALUE));
    assertEquals(
        "{\"id\":\""
            + text(DISCORD)
            + "\",\"replyTo\":\""
            + text(Long.MAX_VALUE)
            + "\",\"likes\":1152921504606846976,\"text\":\"hi\"}",
        json);
  }

  void readsStringsAndNumbers() throws Exception {
    Message fromText =
        read("{\"id\":\"" + text(DISCORD) + "\",\"replyTo\":null,\"likes\":0,\"text\":\"a\"}");
    assertEquals(DISCORD, fromText.id);
    assertNull(fromText.replyTo);
    Message fromNumber = read("{\"id\":175928847299117063,\"replyTo\":9223372036854775807}");
    assertEquals(DISCORD, fromNumber.id);
    assertEquals(Long.MAX_VALUE, fromNumber.replyTo);
  }

  void roundTrips() throws Exception {
    for (long id : new long[] {0, 1, DISCORD, Long.MAX_VALUE}) {
      Message back = read(write(message(id, id)));
      assertEquals(id, back.id);
      assertEquals(id, back.replyTo);
    }
  }
}
