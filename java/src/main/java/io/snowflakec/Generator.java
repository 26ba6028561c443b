package io.snowflakec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Issues unique, time-ordered IDs for one layout and one node value. Thread-safe and lock-free:
 * share one generator between all threads of a process.
 *
 * <pre>{@code
 * try (Generator g = Generator.builder().preset("twitter").node("datacenter", 1).node("worker", 3).build()) {
 *     long id = g.nextId();
 *     long[] batch = g.nextIds(1000);
 * }
 *
 * // Many JVMs on one host, no configuration: each takes a free worker from the pool.
 * Generator pooled = Generator.builder()
 *     .layout(Layout.parse("time:41@1ms,worker:10,seq:12", 1704067200000L))
 *     .node("worker", "auto")
 *     .stateDir(Path.of("/var/lib/myapp/snowflake"))
 *     .build();
 * }</pre>
 *
 * <p>Every node field must get its value from {@link Builder#node(String, long)}, {@link
 * Builder#node(String, String)} ({@code "auto"}: the pool in the state directory; {@code "host"}:
 * the ordinal ending the host name; {@code "env:NAME"}: the environment variable {@code NAME}) or
 * the environment variable {@code SNOWFLAKE_<FIELD>}: there is no silent default.
 *
 * <p>The host-wide guard, on by default: while this generator is open, no other generator with the
 * same layout and node values — in this JVM or another process of the host or container — can be
 * created; it fails with {@link WorkerUnavailableException} naming the holder's pid. See {@link
 * Builder#guard(boolean)}.
 *
 * <p>{@link #close()} releases the node value. It waits for calls in progress on other threads;
 * calls made after it throw {@link IllegalStateException}.
 */
public final class Generator implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  // Calls in progress, counted in padded per-thread stripes so that threads do not fight
  // over one cache line; close() waits for them to drain before freeing the native side.
  private static final int STRIPES = 16;
  private static final int PAD = 16;
  private static final VarHandle CLOSED;

  static {
    try {
      CLOSED = MethodHandles.lookup().findVarHandle(Generator.class, "closed", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long handle;
  private final Layout layout;
  private final AtomicLongArray inflight = new AtomicLongArray(STRIPES * PAD);
  private final Cleaner.Cleanable cleanable;
  private volatile boolean closed;

  /** Frees the native generator when the Java one is closed or unreachable. */
  private static final class Free implements Runnable {
    private final long handle;

    Free(long handle) {
      this.handle = handle;
    }

    @Override
    public void run() {
      Native.generatorFree(handle);
    }
  }

  private Generator(long handle) {
    this.handle = handle;
    try {
      this.layout = Layout.ofRaw(Native.generatorLayout(handle));
      this.cleanable = CLEANER.register(this, new Free(handle));
    } catch (RuntimeException | Error e) {
      Native.generatorFree(handle);
      throw e;
    }
  }

  /**
   * A builder with no layout yet (the {@code default} preset unless one is given).
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The layout of the IDs issued.
   *
   * @return the layout
   */
  public Layout layout() {
    return layout;
  }

  // ---- hot path -------------------------------------------------------------------------

  private int enter() {
    int slot = (int) (Thread.currentThread().getId() & (STRIPES - 1)) * PAD;
    inflight.getAndIncrement(slot);
    if (closed) {
      inflight.getAndDecrement(slot);
      throw new IllegalStateException("This generator is closed.");
    }
    return slot;
  }

  private void exit(int slot) {
    inflight.getAndDecrement(slot);
    Reference.reachabilityFence(this);
  }

  private long next(long nowUs) {
    int slot = enter();
    try {
      return Native.next(handle, nowUs);
    } finally {
      exit(slot);
    }
  }

  /**
   * The next ID. Waits (without holding anything) when the tick's sequence has run out or the clock
   * stepped back a little.
   *
   * @return a positive ID, unique and greater than the previous one (except right after a
   *     clock-field bump)
   * @throws ClockMovedBackwardsException when the clock went back further than the rollback
   *     strategy allows
   * @throws TimeExhaustedException when the layout's time field has run out
   * @throws GeneratorForkedException when used in a forked child with a static node value
   * @throws IllegalStateException when the generator is closed
   */
  public long nextId() {
    long r = next(Native.NOW_FROM_CLOCK);
    return r >= 0 ? r : nextIdAfterWait(r);
  }

  private long nextIdAfterWait(long r) {
    for (; ; ) {
      pause(-1 - r);
      r = next(Native.NOW_FROM_CLOCK);
      if (r >= 0) {
        return r;
      }
    }
  }

  /**
   * {@code n} new IDs, issued in runs of consecutive IDs (one atomic step per tick).
   *
   * @param n how many, at least 0
   * @return the IDs, increasing
   * @throws InvalidArgumentException when {@code n} is negative
   * @throws SnowflakeException as {@link #nextId()}
   */
  public long[] nextIds(int n) {
    if (n < 0) {
      throw new InvalidArgumentException("nextIds needs a count of at least 0, not " + n + ".");
    }
    long[] ids = new long[n];
    nextIds(ids, 0, n);
    return ids;
  }

  /**
   * Fills {@code dst} with new IDs, in one native call unless it must wait for a tick.
   *
   * @param dst the array to fill
   * @throws SnowflakeException as {@link #nextId()}; the IDs written before an error are valid and
   *     unique
   */
  public void nextIds(long[] dst) {
    nextIds(dst, 0, dst.length);
  }

  /**
   * Fills {@code dst[off, off + len)} with new IDs.
   *
   * @param dst the array
   * @param off the first index to fill
   * @param len how many to fill
   * @throws IndexOutOfBoundsException when the range is outside the array
   * @throws SnowflakeException as {@link #nextId()}
   */
  public void nextIds(long[] dst, int off, int len) {
    Objects.checkFromIndexSize(off, len, dst.length);
    long[] out = new long[2];
    while (len > 0) {
      int filled = fill(Native.NOW_FROM_CLOCK, dst, off, len, out);
      off += filled;
      len -= filled;
      if (len > 0 && out[1] >= 0) {
        pause(out[1]);
      }
    }
  }

  private int fill(long nowUs, long[] dst, int off, int len, long[] out) {
    out[0] = 0;
    out[1] = -1;
    int slot = enter();
    try {
      return Native.nextIds(handle, nowUs, dst, off, len, out);
    } finally {
      exit(slot);
    }
  }

  /**
   * Waits about {@code waitUs} microseconds, the core's way in Java terms: park for all but the
   * last 200 µs (a parked thread may wake late), then spin and yield to the deadline, so that a
   * waiting generator wakes on its tick without burning a core. An interrupted thread still waits
   * (the waits are bounded by the generator's {@code maxWait}) and keeps its interrupt status.
   */
  private static void pause(long waitUs) {
    if (Thread.currentThread().isInterrupted()) {
      Native.pause(waitUs);
      return;
    }
    long deadline = System.nanoTime() + waitUs * 1000;
    if (waitUs > 400) {
      LockSupport.parkNanos((waitUs - 200) * 1000);
    }
    for (int spins = 0; System.nanoTime() - deadline < 0; spins++) {
      if (spins < 64) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
  }

  // ---- deterministic entries -------------------------------------------------------------

  /**
   * The outcome of {@link #nextIdAt(long)}: an ID, or how long to wait before calling again.
   *
   * @param id the ID issued, or -1 when the caller must wait
   * @param waitUs microseconds to wait before calling again, or 0 when an ID was issued
   */
  public record Next(long id, long waitUs) {
    /**
     * Whether the caller must wait.
     *
     * @return true when nothing was issued
     */
    public boolean isWait() {
      return id < 0;
    }
  }

  /**
   * The outcome of {@link #nextIdsAt(long, long[], int, int)}.
   *
   * @param filled how many IDs were written
   * @param waitUs microseconds to wait before asking for the rest, or -1
   * @param error the error that stopped the batch, or null
   */
  public record Batch(int filled, long waitUs, SnowflakeException error) {}

  /**
   * The deterministic entry: issues an ID at the given clock reading without reading the clock nor
   * waiting. For tests with an injected clock and for frameworks that wait their own way.
   *
   * @param nowUs the clock reading, Unix microseconds
   * @return the ID, or the wait asked for
   * @throws SnowflakeException as {@link #nextId()}
   */
  public Next nextIdAt(long nowUs) {
    if (nowUs == Native.NOW_FROM_CLOCK) {
      throw new InvalidArgumentException("The clock reading " + nowUs + " µs is not a time.");
    }
    long r = next(nowUs);
    return r >= 0 ? new Next(r, 0) : new Next(-1, -1 - r);
  }

  /**
   * The deterministic batch: fills {@code dst[off, off + len)} as far as it can at the given clock
   * reading, never waiting.
   *
   * @param nowUs the clock reading, Unix microseconds
   * @param dst the array
   * @param off the first index to fill
   * @param len how many to fill
   * @return how many were filled, and the wait or the error that stopped the batch
   */
  public Batch nextIdsAt(long nowUs, long[] dst, int off, int len) {
    Objects.checkFromIndexSize(off, len, dst.length);
    if (nowUs == Native.NOW_FROM_CLOCK) {
      throw new InvalidArgumentException("The clock reading " + nowUs + " µs is not a time.");
    }
    long[] out = new long[2];
    try {
      int filled = fill(nowUs, dst, off, len, out);
      return new Batch(filled, out[1], null);
    } catch (SnowflakeException e) {
      return new Batch((int) out[0], -1, e);
    }
  }

  /**
   * The generator's clock: Unix microseconds from its time source.
   *
   * @return the clock reading
   */
  public long nowUs() {
    int slot = enter();
    try {
      return Native.nowUs(handle);
    } finally {
      exit(slot);
    }
  }

  /**
   * A {@link LongSupplier} view of {@link #nextId()}, for frameworks that take one.
   *
   * @return the supplier
   */
  public LongSupplier asLongSupplier() {
    return this::nextId;
  }

  /**
   * The counters.
   *
   * @return a snapshot
   */
  public Stats stats() {
    Object[] r;
    int slot = enter();
    try {
      r = Native.stats(handle);
    } finally {
      exit(slot);
    }
    long[] n = (long[]) r[0];
    String[] s = (String[]) r[1];
    Map<String, Long> nodes = new LinkedHashMap<>();
    Map<String, String> sources = new LinkedHashMap<>();
    for (int i = 0; 1 + 2 * i < s.length; i++) {
      nodes.put(s[1 + 2 * i], n[11 + i]);
      sources.put(s[1 + 2 * i], s[2 + 2 * i]);
    }
    return new Stats(
        n[0],
        n[1],
        n[2],
        n[3],
        n[4],
        n[5],
        n[6],
        n[7],
        n[8],
        s[0],
        n[9],
        n[10],
        Collections.unmodifiableMap(nodes),
        Collections.unmodifiableMap(sources),
        new String((byte[]) r[2], Builder.nativeCharset()));
  }

  /**
   * Writes the last time issued to the state file (if any), releases the node value and frees the
   * native generator. Waits for calls in progress; later calls throw {@link IllegalStateException}.
   * Closing twice does nothing.
   */
  @Override
  public void close() {
    if (!CLOSED.compareAndSet(this, false, true)) {
      return;
    }
    for (int spins = 0; inFlight() != 0; spins++) {
      if (spins < 100) {
        Thread.onSpinWait();
      } else {
        LockSupport.parkNanos(50_000);
      }
    }
    cleanable.clean();
  }

  private long inFlight() {
    long sum = 0;
    for (int i = 0; i < STRIPES; i++) {
      sum += inflight.get(i * PAD);
    }
    return sum;
  }

  /**
   * Whether {@link #close()} was called.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return closed;
  }

  @Override
  public String toString() {
    return "Generator[" + layout + (closed ? ", closed]" : "]");
  }

  // ---- builder -----------------------------------------------------------------------------

  /**
   * Configures a {@link Generator}. Values are checked as they are given where the core can check
   * them alone (names, node values), and by {@link #build()} otherwise.
   */
  public static final class Builder {
    private Layout layout;
    private String spec;
    private Long epochMs;
    private final Map<String, Long> node = new LinkedHashMap<>();
    private int rollback;
    private long maxWaitMs = -1;
    private long maxDriftMs = -1;
    private boolean randomStart;
    private TimeSource timeSource = TimeSource.WALL;
    private Path stateDir;
    private long stateReserveMs = -1;
    private boolean guard = true;
    private Path guardDir;

    private Builder() {}

    /**
     * Uses a preset's layout and epoch ({@code default}, {@code twitter}, {@code discord}, {@code
     * sonyflake}, {@code baidu}, {@code instagram}).
     *
     * @param name the preset
     * @return this builder
     * @throws InvalidLayoutException for an unknown preset
     */
    public Builder preset(String name) {
      this.layout = Layout.preset(name);
      this.spec = null;
      return this;
    }

    /**
     * Uses a layout.
     *
     * @param layout the layout, with its epoch
     * @return this builder
     */
    public Builder layout(Layout layout) {
      this.layout = Objects.requireNonNull(layout, "layout");
      this.spec = null;
      return this;
    }

    /**
     * Uses a layout spec; give its epoch with {@link #epoch(long)}.
     *
     * @param spec for example {@code "time:41@1ms,worker:10,seq:12"}
     * @return this builder
     */
    public Builder layout(String spec) {
      this.spec = Objects.requireNonNull(spec, "spec");
      this.layout = null;
      return this;
    }

    /**
     * Sets the epoch of the layout spec, or replaces the preset's.
     *
     * @param epochMs Unix milliseconds of time value 0
     * @return this builder
     */
    public Builder epoch(long epochMs) {
      this.epochMs = epochMs;
      return this;
    }

    /**
     * Sets the epoch from text: Unix milliseconds or an ISO-8601 UTC instant.
     *
     * @param epoch for example {@code "2024-01-01T00:00:00Z"}
     * @return this builder
     * @throws InvalidLayoutException when it is neither
     */
    public Builder epoch(String epoch) {
      this.epochMs = Layout.parseEpoch(epoch);
      return this;
    }

    /**
     * Sets a node field's value.
     *
     * @param name a node field of the layout, for example {@code "worker"}
     * @param value from 0 to the field's maximum
     * @return this builder
     * @throws InvalidArgumentException when the value is negative
     */
    public Builder node(String name, long value) {
      Objects.requireNonNull(name, "name");
      if (value < 0) {
        throw new InvalidArgumentException(
            "Node field '" + name + "' is " + value + ": a node value is never negative.");
      }
      node.put(name, value);
      return this;
    }

    /**
     * Sets a node field's value from text: a number, {@code "auto"} (the first free value of the
     * pool in {@link #stateDir(Path)}), {@code "host"} (the ordinal ending the host name, {@code
     * orders-7} → 7) or {@code "env:NAME"} (the number in the environment variable {@code NAME},
     * read now: Kubernetes' {@code JOB_COMPLETION_INDEX} in an Indexed Job, or a pod index label
     * exposed through the Downward API).
     *
     * @param name a node field of the layout
     * @param value the text
     * @return this builder
     * @throws InvalidArgumentException when the text is none of these, or the variable is unset or
     *     not a number
     */
    public Builder node(String name, String value) {
      Objects.requireNonNull(name, "name");
      node.put(name, Native.nodeValueParse(Objects.requireNonNull(value, "value")));
      return this;
    }

    /**
     * What to do when the wall clock goes backwards: {@code default}, {@code error}, {@code wait},
     * {@code clock} or {@code borrow}.
     *
     * @param strategy the strategy's name
     * @return this builder
     * @throws SnowflakeException for an unknown name
     */
    public Builder rollback(String strategy) {
      this.rollback = Native.rollbackParse(Objects.requireNonNull(strategy, "strategy"));
      return this;
    }

    /**
     * The longest wait for the clock to catch up (the strategy's default otherwise).
     *
     * @param maxWait 0 to 1 day, rounded up to the next whole millisecond
     * @return this builder
     */
    public Builder maxWait(Duration maxWait) {
      this.maxWaitMs = millis(maxWait, "maxWait");
      return this;
    }

    /**
     * How far ahead of the clock IDs may be issued when a tick's sequence runs out or the clock
     * steps back (the strategy's default otherwise).
     *
     * @param maxDrift 0 to 1 day, rounded up to the next whole millisecond
     * @return this builder
     */
    public Builder maxDrift(Duration maxDrift) {
      this.maxDriftMs = millis(maxDrift, "maxDrift");
      return this;
    }

    /**
     * Starts each tick's sequence at a pseudo-random value in its lower half, so that {@code id %
     * N} spreads evenly at low rates.
     *
     * @param randomStart whether to
     * @return this builder
     */
    public Builder randomStart(boolean randomStart) {
      this.randomStart = randomStart;
      return this;
    }

    /**
     * Keeps state in a folder: a lock file per node value (so that two live processes never hold
     * the same one, and {@code "auto"} works) and a high-water mark that detects a clock that went
     * back across a restart.
     *
     * @param dir the folder, created if missing
     * @return this builder
     */
    public Builder stateDir(Path dir) {
      this.stateDir = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /**
     * Whether the host-wide guard is on (the default). On, the generator holds its layout and node
     * values under a lock that the OS releases when the process dies, and a second live generator
     * with the same ones fails at creation with {@link WorkerUnavailableException}. Turn it off
     * only where sharing a value is meant: two generators with one value issue the same IDs. (A
     * {@link #stateDir(Path)} still locks its values.)
     *
     * @param on false to turn the guard off for this generator
     * @return this builder
     */
    public Builder guard(boolean on) {
      this.guard = on;
      return this;
    }

    /**
     * The folder of the guard's lock files, instead of the default ({@code
     * $XDG_RUNTIME_DIR/snowflake-c}, else {@code /dev/shm/snowflake-c-<uid>}, else the temporary
     * folder's {@code snowflake-c-<uid>}; Windows: {@code snowflake-c} in {@code %TEMP%}). Only the
     * generators that use one folder meet there. Not used with a {@link #stateDir(Path)}, whose
     * lock files are the guard. A folder that cannot be used does not stop the generator: {@link
     * Stats#guard()} says why.
     *
     * @param dir the folder, created owner-only if missing
     * @return this builder
     */
    public Builder guardDir(Path dir) {
      this.guardDir = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /**
     * How far ahead the high-water mark is reserved (default 1 s).
     *
     * @param reserve 0 (the default) to 1 hour, rounded up to the next whole millisecond
     * @return this builder
     */
    public Builder stateReserve(Duration reserve) {
      this.stateReserveMs = millis(reserve, "stateReserve");
      return this;
    }

    /**
     * Where the generator reads the time.
     *
     * @param source the time source
     * @return this builder
     */
    public Builder timeSource(TimeSource source) {
      this.timeSource = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Where the generator reads the time: {@code "wall"} or {@code "monotonic"}.
     *
     * @param source the name
     * @return this builder
     * @throws InvalidArgumentException for another name
     */
    public Builder timeSource(String source) {
      Objects.requireNonNull(source, "source");
      try {
        this.timeSource = TimeSource.valueOf(source.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new InvalidArgumentException(
            "Unknown time source '" + source + "': use \"wall\" or \"monotonic\".");
      }
      return this;
    }

    /**
     * Creates the generator.
     *
     * @return the generator; close it to release its node value
     * @throws InvalidLayoutException when the layout spec or epoch is not valid
     * @throws InvalidArgumentException when a node value is missing, unknown or out of range, or an
     *     option is out of range
     * @throws WorkerUnavailableException when the node values are held by another live generator
     *     (the guard, or the state directory's lock) or the pool is full
     * @throws StateErrorException when the state directory cannot be used
     */
    public Generator build() {
      Layout chosen = layout;
      if (spec != null) {
        if (epochMs == null) {
          throw new InvalidArgumentException(
              "The layout spec '" + spec + "' needs an epoch: call epoch(...) as well.");
        }
        chosen = Layout.parse(spec, epochMs);
      } else {
        if (chosen == null) {
          chosen = Layout.preset("default");
        }
        if (epochMs != null && epochMs != chosen.epochMs()) {
          chosen = Layout.parse(chosen.spec(), epochMs);
        }
      }
      String[] names = node.keySet().toArray(new String[0]);
      long[] values = new long[names.length];
      for (int i = 0; i < names.length; i++) {
        values[i] = node.get(names[i]);
      }
      byte[] dir = pathBytes(stateDir);
      long h =
          Native.generatorNew(
              chosen.raw(),
              names,
              values,
              rollback,
              maxWaitMs,
              maxDriftMs,
              randomStart,
              timeSource.ordinal(),
              dir,
              stateReserveMs,
              guard,
              pathBytes(guardDir));
      return new Generator(h);
    }

    /** A path as the file-system bytes the core takes, or null. */
    private static byte[] pathBytes(Path path) {
      return path == null ? null : path.toString().getBytes(nativeCharset());
    }

    /** Whole ms, rounded up (1 ns is 1 ms); the core checks the option's range. */
    private static long millis(Duration d, String what) {
      Objects.requireNonNull(d, what);
      return Native.durationMs(what, d.getSeconds(), d.getNano());
    }

    static Charset nativeCharset() {
      String name = System.getProperty("sun.jnu.encoding");
      try {
        return name != null ? Charset.forName(name) : Charset.defaultCharset();
      } catch (RuntimeException e) {
        return Charset.defaultCharset();
      }
    }
  }
}
