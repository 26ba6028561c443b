package io.snowflakec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The common case of {@link Generator#nextId()} without a native call, by the rule the core
 * publishes ({@code sfc_generator_fast_rule}): a new millisecond or the next sequence value of the
 * current one, by one compare-and-swap on the core's own state word. Anything else — no rule, a
 * lost compare-and-swap, a tick's sequence used up, the clock behind, the time field's end, a
 * closed generator (whose word the core has made send every step here) — is the core's: {@link
 * #next()} answers -1 and the caller calls it.
 *
 * <p>The buffers point into the native generator: the caller keeps the {@link Generator} reachable
 * while it uses them, since its Cleaner frees that memory.
 */
final class FastPath {
  /** Atomic access to a long in native order: aligned direct buffers support every mode. */
  private static final VarHandle LONG =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

  /** The core's memory from the state word on: the word at 0, the others at their offsets. */
  private final ByteBuffer memory;

  private final int closedTicks;
  private final int mark;
  private final long epochMs;
  private final int timeShift;
  private final long timeMax;
  private final long seqOne;
  private final int seqShift;
  private final long seqMask;
  private final long keepMask;
  private final int contendedPauses;

  private FastPath(long[] rule, ByteBuffer memory) {
    this.memory = memory;
    this.closedTicks = (int) rule[7];
    this.mark = (int) rule[8];
    this.epochMs = rule[0];
    this.timeShift = (int) rule[1];
    this.timeMax = rule[2];
    this.seqOne = rule[3];
    this.seqShift = Long.numberOfTrailingZeros(rule[3]);
    this.seqMask = rule[4];
    this.keepMask = rule[5];
    this.contendedPauses = (int) rule[6];
  }

  /** The generator's rule, or null when the core keeps every call. */
  static FastPath of(long handle) {
    Object[] rule = Native.fastRule(handle);
    if (rule == null || !(rule[1] instanceof ByteBuffer memory)) {
      return null;
    }
    return new FastPath((long[]) rule[0], memory);
  }

  /**
   * The next ID by the rule's steps (the core's {@code next_fast}), or -1 for the core to issue.
   */
  long next() {
    // The word, then the mark: the core moves a mark down before it changes the word that mark
    // guards, so the mark read after a word is as new as that word. Both before the clock, whose
    // read is most of the call's time: the loads and their checks overlap it.
    final ByteBuffer m = memory;
    final long w = (long) LONG.getVolatile(m, 0);
    final long markTick = (long) LONG.getVolatile(m, mark);
    final long tick = System.currentTimeMillis() - epochMs;
    final long t = w >>> timeShift;
    final long next;
    if (t < tick && tick >= 0 && Long.compareUnsigned(tick, timeMax) <= 0) {
      next = (w & keepMask) | (tick << timeShift);
    } else if (t == tick && (w & seqMask) != seqMask) {
      next = w + seqOne;
    } else {
      return -1;
    }
    // Past the mark the hand-over is written first: the core's to do.
    // Read on every call, never kept: the mark also moves back (to -1 when a lease is lost or a
    // caller's own timeline takes the word over), and no ID may pass it from then on.
    if (tick > markTick) {
      return -1;
    }
    // An ID beyond Long.MAX_VALUE is the core's to refuse.
    if (next < 0) {
      return -1;
    }
    if (!LONG.compareAndSet(m, 0, w, next)) {
      // Lost to another thread: step aside as the rule says, so that the winner issues a run of
      // IDs while the word's cache line stays in its core.
      for (int i = 0; i < contendedPauses; i++) {
        Thread.onSpinWait();
      }
      return -1;
    }
    if (t != tick) { // the last tick is closed: the stats count its IDs
      LONG.getAndAdd(m, closedTicks, ((w & seqMask) >>> seqShift) + 1);
    }
    return next;
  }
}
