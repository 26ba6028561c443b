package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Snowflake.decodeUuid7 beyond the shared vectors: Java's types in and out. */
class Uuid7Test {
  @Test
  void decodesTextAndUuidAlike() {
    Uuid7 u = Snowflake.decodeUuid7("017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
    assertEquals(Instant.parse("2022-02-22T19:22:22Z"), u.time());
    assertEquals(0xCC3, u.randA());
    assertEquals(0x18C4DC0C0C07398FL, u.randB());
    assertEquals("017f22e2-79b0-7cc3-98c4-dc0c0c07398f", u.toString());
    Uuid7 same = Snowflake.decodeUuid7(new UUID(0x017F22E279B07CC3L, 0x98C4DC0C0C07398FL));
    assertEquals(u, same);
    assertEquals(u.hashCode(), same.hashCode());
    assertEquals(u.toJson(), same.toJson());
  }

  @Test
  void refusesOtherVersionsAndNull() {
    InvalidArgumentException e =
        assertThrows(
            InvalidArgumentException.class, () -> Snowflake.decodeUuid7(UUID.randomUUID()));
    assertTrue(e.getMessage().contains("is a version 4 UUID, not 7"), e.getMessage());
    assertThrows(InvalidArgumentException.class, () -> Snowflake.decodeUuid7((String) null));
    assertThrows(InvalidArgumentException.class, () -> Snowflake.decodeUuid7((UUID) null));
  }
}
