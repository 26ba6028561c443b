package io.snowflakec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The way generators call the core: JNI from the classes folder and on Java 17, FFM downcalls from
 * the jar on Java 22+ with native access (the build says which through {@code snowflakec.calls}),
 * and the errors and edge answers of both ways.
 */
class CallsTest {
  private static final String EXPECTED = System.getProperty("snowflakec.calls");

  /** 64 bits: from 2^41 ms after the epoch, an ID's top bit is set. */
  private static final Layout WIDE = Layout.parse("time:42@1ms,worker:10,seq:12", 0L);

  private static Generator wide() {
    return Generator.builder().layout(WIDE).node("worker", 5).guard(false).build();
  }

  @Test
  void theExpectedWayIsUsed() {
    assertNotNull(EXPECTED, "the build names the expected way in snowflakec.calls");
    assertEquals(
        EXPECTED, Calls.inThisJvm(), () -> "Calls from " + Calls.class.getResource("Calls.class"));
    try (Generator g = wide()) {
      assertEquals(EXPECTED, g.calls());
      assertTrue(g.nextId() > 0);
    }
  }

  @Test
  void theCounterTimeSourceCallsTheCoreEveryTime() {
    try (Generator wall = wide();
        Generator counter =
            Generator.builder()
                .layout(WIDE)
                .node("worker", 7)
                .guard(false)
                .timeSource(TimeSource.COUNTER)
                .build()) {
      assertTrue(wall.hasFastPath());
      assertFalse(counter.hasFastPath());
      assertEquals(EXPECTED, counter.calls());
      long a = counter.nextId();
      long b = counter.nextId();
      assertTrue(b > a, a + " then " + b);
    }
  }

  @Test
  void aStateDirectoryKeepsJni(@TempDir Path dir) {
    try (Generator g =
        Generator.builder().layout(WIDE).node("worker", 6).guard(false).stateDir(dir).build()) {
      assertEquals("jni", g.calls());
      assertTrue(g.nextId() > 0);
    }
  }

  @Test
  void errorsComeBackAsTheCoresExceptions() {
    Generator g = wide();
    InvalidArgumentException before =
        assertThrows(InvalidArgumentException.class, () -> g.nextIdAt(-1_000_000L));
    assertTrue(before.getMessage().contains("before the layout's epoch"), before.getMessage());
    long[] dst = {7, 7};
    Generator.Batch batch = g.nextIdsAt(-1_000_000L, dst, 0, 2);
    assertEquals(0, batch.filled());
    assertInstanceOf(InvalidArgumentException.class, batch.error());
    assertArrayEquals(new long[] {7, 7}, dst);
    g.close();
    InvalidArgumentException closed = assertThrows(InvalidArgumentException.class, g::nextId);
    assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    assertThrows(InvalidArgumentException.class, () -> g.nextIds(3));
  }

  @Test
  void anIdWithItsTopBitSetIsRefusedAndNeverWritten() {
    long topBitUs = (1L << 41) * 1000; // time value 2^41: bit 63 of the ID
    try (Generator g = wide()) {
      Generator.Next below = g.nextIdAt(topBitUs - 1000);
      assertTrue(below.id() > 0);
      TimeExhaustedException one =
          assertThrows(TimeExhaustedException.class, () -> g.nextIdAt(topBitUs));
      assertTrue(one.getMessage().contains("signed Java long"), one.getMessage());
      long[] dst = {7, 7, 7};
      Generator.Batch batch = g.nextIdsAt(topBitUs, dst, 1, 2);
      assertEquals(0, batch.filled());
      assertInstanceOf(TimeExhaustedException.class, batch.error());
      assertArrayEquals(new long[] {7, 7, 7}, dst);
    }
  }

  @Test
  void batchesLongerThanOneDowncallAreWhole() {
    // More than one tick's sequence and more than one downcall's chunk: every ID once, in order.
    try (Generator g = wide()) {
      long[] ids = g.nextIds(20_000);
      for (int i = 1; i < ids.length; i++) {
        assertTrue(ids[i] > ids[i - 1], "increasing at " + i);
      }
      long[] part = new long[30_000];
      g.nextIds(part, 5_000, 20_000);
      assertEquals(0, part[4_999]);
      assertEquals(0, part[25_000]);
      assertTrue(part[5_000] > ids[ids.length - 1]);
      for (int i = 5_001; i < 25_000; i++) {
        assertTrue(part[i] > part[i - 1], "increasing at " + i);
      }
    }
  }
}
