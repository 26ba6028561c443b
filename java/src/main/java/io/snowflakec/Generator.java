package io.snowflakec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

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
 * <p>The guard, on by default: while this generator is open, no other generator that could issue
 * the same IDs — same ID space and node bits, whatever the field names — can be created, in this
 * JVM or another process of the host, whatever its user, folders or environment; it fails with
 * {@link WorkerUnavailableException} naming the holder's pid. See {@link Builder#guard(boolean)}.
 *
 * <p>{@link #close()} releases the node value at once. A call racing it on another thread either
 * issues before it (and that ID is handed over to the value's next holder) or fails as every call
 * made after it does, with {@link InvalidArgumentException} ("the generator is closed"), the core's
 * answer in every language; a call waiting for the clock ends so within 20 ms. The native memory is
 * freed once the generator is unreachable.
 */
public final class Generator implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  /** The logger of the core's warnings (System.Logger: java.util.logging unless configured). */
  static final String LOGGER = "io.snowflakec";

  // The warnings said so far: each once per JVM, however many generators it concerns.
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private static final VarHandle CLOSED;

  // The longest pause between two calls of a waiting nextId() or nextIds(): close() on another
  // thread ends the wait within it (the next call answers that the generator is closed).
  private static final long MAX_PAUSE_US = 20_000;

  // false: every nextId() calls the core, for measuring the calls alone.
  private static final boolean FAST_PATH =
      !"false".equals(System.getProperty("io.snowflakec.fastPath"));

  static {
    try {
      CLOSED = MethodHandles.lookup().findVarHandle(Generator.class, "closed", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  // The native generator: closed by close(), freed by the Cleaner only once this object is
  // unreachable, so that no call (each keeps `this` reachable to its end) can reach freed memory.
  private final long handle;
  private final Layout layout;
  private final List<Warning> warnings;
  private final FastPath fast; // null: every call goes to the core
  private final Calls calls; // JNI, or FFM downcalls on Java 22+
  private final LeaseHost lease; // null: the node values are not leased
  private volatile boolean closed;

  /** Frees the native generator once the Java one is unreachable, then its lease if it has one. */
  private static final class Free implements Runnable {
    private final long handle;
    private final long lease;

    Free(long handle, long lease) {
      this.handle = handle;
      this.lease = lease;
    }

    @Override
    public void run() {
      Native.generatorFree(handle);
      if (lease != 0) {
        Native.leaseFree(lease);
      }
    }
  }

  private Generator(long handle, LeaseHost lease) {
    this.handle = handle;
    this.lease = lease;
    this.calls = Calls.of(Native.mayBlock(handle));
    try {
      this.layout = Layout.ofRaw(Native.generatorLayout(handle));
      List<?> said = (List<?>) Facts.value(Native.generatorWarnings(handle)); // [kind, text]
      Warning[] warnings = new Warning[said.size()];
      for (int i = 0; i < warnings.length; i++) {
        List<?> w = (List<?>) said.get(i);
        warnings[i] = new Warning((String) w.get(0), (String) w.get(1));
        warn((String) w.get(1));
      }
      this.warnings = List.of(warnings);
      // No rule for time_source counter where its counter runs: the core's check is cheaper than
      // System.currentTimeMillis(), through FFM and through JNI alike.
      this.fast = FAST_PATH ? FastPath.of(handle) : null;
      CLEANER.register(this, new Free(handle, lease == null ? 0 : lease.lease));
    } catch (RuntimeException | Error e) {
      if (lease != null) {
        Native.generatorClose(handle);
        lease.giveBack(); // reads the generator's last tick
      }
      Native.generatorFree(handle);
      if (lease != null) {
        Native.leaseFree(lease.lease);
      }
      throw e;
    }
  }

  /** Says the core's warning for a new generator, if it has one. */
  private static void warn(String text) {
    if (text != null && WARNED.add(text)) {
      System.getLogger(LOGGER).log(System.Logger.Level.WARNING, text);
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
   * The options a builder takes, in the core's order and Java's casing: {@code rollback}, {@code
   * maxWait}, … (see {@link Builder#option(String, Object)}).
   *
   * @return the options' names, from the core's table
   */
  public static List<String> options() {
    return Facts.OPTIONS.stream().map(Facts::camelCase).toList();
  }

  /**
   * A warning the core gave at a generator's creation.
   *
   * @param kind {@code "Unguarded"} (its node value is not guarded: the guard is off, or the host
   *     cannot hold a claim) or {@code "LayoutEnding"} (its layout's time runs out within ten
   *     years, or has run out)
   * @param message the text, as logged
   */
  public record Warning(String kind, String message) {}

  /**
   * What the core said of this generator at its creation, in its order; empty when nothing. Each
   * text is logged too (a {@code WARNING} on the {@link System.Logger} {@code "io.snowflakec"}),
   * once per JVM: this list keeps it for every generator it concerns.
   *
   * @return the warnings, unmodifiable
   */
  public List<Warning> warnings() {
    return warnings;
  }

  /**
   * The layout of the IDs issued.
   *
   * @return the layout
   * @throws InvalidArgumentException when the generator is closed
   */
  public Layout layout() {
    if (closed) {
      Native.generatorLayout(0); // throws the core's answer for a closed generator
    }
    return layout;
  }

  // ---- hot path -------------------------------------------------------------------------

  /** The native generator, or 0 once closed: the core answers every call on it. */
  private long handle() {
    return closed ? 0 : handle;
  }

  private long next(long nowUs) {
    try {
      return calls.next(handle(), nowUs);
    } finally {
      Reference.reachabilityFence(this);
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
   * @throws InvalidArgumentException when the generator is closed
   */
  public long nextId() {
    FastPath f = fast;
    if (f != null) {
      try {
        long id = f.next();
        if (id >= 0) {
          return id;
        }
      } finally {
        Reference.reachabilityFence(this);
      }
    }
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
    try {
      return calls.nextIds(handle(), nowUs, dst, off, len, out);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Waits about {@code waitUs} microseconds, at most {@link #MAX_PAUSE_US}, the core's way in Java
   * terms: park for all but the last 200 µs (a parked thread may wake late), then spin and yield to
   * the deadline, so that a waiting generator wakes on its tick without burning a core. An
   * interrupted thread still waits (the waits are bounded by the generator's {@code maxWait}) and
   * keeps its interrupt status.
   */
  private static void pause(long waitUs) {
    waitUs = Math.min(waitUs, MAX_PAUSE_US);
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
   * @throws InvalidArgumentException when the generator is closed
   */
  public long nowUs() {
    try {
      return Native.nowUs(handle());
    } finally {
      Reference.reachabilityFence(this);
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
   * The counters, and the lease of a leased node value ({@link Stats#lease()}).
   *
   * @return a snapshot
   * @throws InvalidArgumentException when the generator is closed
   */
  public Stats stats() {
    Map<String, Object> map;
    try {
      map = Facts.map(Native.stats(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
    if (lease != null) {
      Map<String, Object> with = new LinkedHashMap<>(map);
      with.put("lease", lease.stats());
      map = Collections.unmodifiableMap(with);
    }
    return new Stats(map);
  }

  /**
   * Writes the last time issued to the state file (if any) and releases the node value, without
   * waiting: a call racing it on another thread issues before it or throws, as every later call
   * does, {@link InvalidArgumentException}. The native memory is freed once this generator is
   * unreachable. Closing twice does nothing.
   *
   * <p>A leased node value ({@link Builder#lease(String)}): its renewer is stopped first, then the
   * generator is closed, then the value is given back to the database with its exact last tick (one
   * statement, waited for).
   */
  @Override
  public void close() {
    if (!CLOSED.compareAndSet(this, false, true)) {
      return;
    }
    // A leased value: the renewer stops first, and the value goes back after the generator is
    // closed, with its exact last tick.
    boolean stopped = lease != null && lease.stopRenewer();
    try {
      Native.generatorClose(handle);
    } finally {
      Reference.reachabilityFence(this);
    }
    if (stopped) {
      lease.giveBack();
    }
  }

  /** Whether nextId() tries the pure-Java fast path first (tests). */
  boolean hasFastPath() {
    return fast != null;
  }

  /** How this generator calls the core: {@code "jni"} or {@code "ffm"} (tests). */
  String calls() {
    return calls.kind();
  }

  /**
   * Whether the generator is closed: by {@link #close()}, or by a newer generator of this process
   * with the same layout and node values, which took the value over.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    if (closed) {
      return true;
    }
    try {
      return Native.generatorClosed(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  @Override
  public String toString() {
    return "Generator[" + layout + (isClosed() ? ", closed]" : "]");
  }

  // ---- builder -----------------------------------------------------------------------------

  /**
   * Configures a {@link Generator}. Every value goes to the core as given and is checked by {@link
   * #build()}, with the same rules and messages in every language.
   *
   * <p>The layout: {@link #preset(String)}, or a spec ({@link #layout(String)}) with its {@link
   * #epoch(long)}, or a {@link #layout(Layout)}; nothing given is the {@code default} preset. A
   * preset carries its own epoch: a preset with an epoch, or with a spec, is an {@link
   * InvalidArgumentException}, as is a spec without its epoch.
   *
   * <p>The guard ({@link #guard(boolean)}), on by default, claims the generator's node value
   * host-wide — with or without a {@link #stateDir(Path)}, static or from the pool: one claim per
   * ID space (the epoch, the time unit, the places and widths of the time, clock and sequence
   * fields) and node bits, whatever the field names, folders, users or environment. A second live
   * generator of the same claim, in this JVM or another process of the host, fails at creation with
   * {@link WorkerUnavailableException} naming the holder's pid; a claim that cannot be taken fails
   * it with {@link StateErrorException}, never an unguarded start. The OS lets the claim go when
   * the process dies. A value given back before the wall clock has passed its last ID hands that ID
   * over: the value's next holder starts after it (IDs issued at given times, {@link
   * Generator#nextIdAt(long)}, are not handed over). Off, nothing is claimed and two generators
   * with one value issue the same IDs: turn it off only where sharing a value is meant (a {@link
   * #stateDir(Path)} still locks its values). The generator then says so, once per JVM and node
   * value: a {@code WARNING} on the {@link System.Logger} {@code "io.snowflakec"}
   * (java.util.logging unless the application routes it elsewhere), and {@link Stats#guard()} is
   * {@code "off"}.
   *
   * <p>The options are the core's table ({@link Generator#options()}): {@link #option(String,
   * Object)} sets any of them by name, and each has a method of its own name (scripts/docs writes
   * them, and the table below, from the core's).
   * <!-- generated: options -->
   *
   * <table class="striped">
   * <caption>The options</caption>
   * <thead>
   * <tr>
   * <th scope="col">option</th>
   * <th scope="col">takes</th>
   * <th scope="col">default</th>
   * <th scope="col">what it does</th>
   * </tr>
   * </thead>
   * <tbody>
   * <tr>
   * <td>{@code rollback}</td>
   * <td>{@code "default"}, {@code "error"}, {@code "wait"}, {@code "clock"}, {@code "borrow"} or {@code "switch"}</td>
   * <td>{@code "default"}</td>
   * <td>what to do when the wall clock goes backwards</td>
   * </tr>
   * <tr>
   * <td>{@code maxWait}</td>
   * <td>a duration, 0 to 1 day</td>
   * <td>the strategy's: 5 ms (default, switch), 0 ms (error, clock), 1000 ms (wait, borrow)</td>
   * <td>longest wait for the clock to catch up after it steps back</td>
   * </tr>
   * <tr>
   * <td>{@code maxDrift}</td>
   * <td>a duration, 0 to 1 day</td>
   * <td>the strategy's: 0 ms (default, error, wait, clock, switch), 1000 ms (borrow)</td>
   * <td>how far ahead of the clock IDs may be issued</td>
   * </tr>
   * <tr>
   * <td>{@code randomStart}</td>
   * <td>{@code true} or {@code false}</td>
   * <td>{@code false}</td>
   * <td>start each tick's sequence at a random value in its lower half</td>
   * </tr>
   * <tr>
   * <td>{@code timeSource}</td>
   * <td>{@code "wall"}, {@code "monotonic"} or {@code "counter"}</td>
   * <td>{@code "wall"}</td>
   * <td>wall: read the wall clock on every call; monotonic: read it once; counter: read it when the processor's counter shows its tick over</td>
   * </tr>
   * <tr>
   * <td>{@code stateDir}</td>
   * <td>a folder</td>
   * <td>none</td>
   * <td>folder of lock and state files: restarts, the pool (auto), the mark</td>
   * </tr>
   * <tr>
   * <td>{@code stateReserve}</td>
   * <td>a duration, 1 ms to 1 hour</td>
   * <td>1000 ms</td>
   * <td>how far ahead the state file's high-water mark is reserved</td>
   * </tr>
   * <tr>
   * <td>{@code guard}</td>
   * <td>{@code true} or {@code false}</td>
   * <td>{@code true}</td>
   * <td>claim the node value host-wide: refuse a second live generator that could issue the same IDs</td>
   * </tr>
   * <tr>
   * <td>{@code leaseDuration}</td>
   * <td>a duration, 1 s to 1 hour</td>
   * <td>15000 ms</td>
   * <td>how long a leased node value is held by the database's clock (renewed at a third of it)</td>
   * </tr>
   * <tr>
   * <td>{@code leaseKey}</td>
   * <td>text, 1 to 120 characters</td>
   * <td>none</td>
   * <td>the instance's stable key: its last leased value is taken again when free</td>
   * </tr>
   * </tbody>
   * </table>
   *
   * <!-- end generated -->
   */
  public static final class Builder {
    private Layout layout;
    private String preset;
    private String spec;
    private String epoch;
    private final Map<String, Object> node = new LinkedHashMap<>();
    private final Map<String, Object> options = new LinkedHashMap<>();
    private Object leaseDatabase; // a URL (String) or a DataSource; null: SNOWFLAKE_LEASE_URL

    private Builder() {}

    /**
     * Uses a preset's layout and epoch ({@code default}, {@code twitter}, {@code discord}, {@code
     * sonyflake}, {@code baidu}, {@code instagram}, {@code jssafe}).
     *
     * @param name the preset
     * @return this builder
     * @throws InvalidArgumentException when the name is null
     */
    public Builder preset(String name) {
      if (name == null) {
        throw new InvalidArgumentException(
            "The preset given to Generator.Builder.preset is null: name one (default, twitter,"
                + " discord, sonyflake, baidu, instagram, jssafe), or leave preset out for the"
                + " default preset.");
      }
      this.preset = name;
      return this;
    }

    /**
     * Uses a layout as it is: it carries its spec and epoch, so a preset, spec or epoch given as
     * well is refused at {@link #build()}.
     *
     * @param layout the layout
     * @return this builder
     * @throws InvalidArgumentException when the layout is null
     */
    public Builder layout(Layout layout) {
      if (layout == null) {
        throw new InvalidArgumentException(
            "The layout given to Generator.Builder.layout is null: build one with Layout.preset"
                + " or Layout.parse, or leave layout out for the default preset.");
      }
      this.layout = layout;
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
      this.spec =
          Snowflake.given(
              spec,
              "spec",
              "Generator.Builder.layout",
              "give a layout spec such as time:41@1ms,worker:10,seq:12, or leave layout out for the"
                  + " default preset");
      this.layout = null;
      return this;
    }

    /**
     * Sets the epoch of the layout spec.
     *
     * @param epochMs Unix milliseconds of time value 0
     * @return this builder
     */
    public Builder epoch(long epochMs) {
      this.epoch = Long.toString(epochMs);
      return this;
    }

    /**
     * Sets the epoch of the layout spec from text: Unix milliseconds or an ISO-8601 UTC instant.
     *
     * @param epoch for example {@code "2024-01-01T00:00:00Z"}
     * @return this builder
     */
    public Builder epoch(String epoch) {
      this.epoch =
          Snowflake.given(
              epoch,
              "epoch",
              "Generator.Builder.epoch",
              "give Unix milliseconds or an ISO-8601 UTC instant such as 2024-01-01T00:00:00Z");
      return this;
    }

    /**
     * Sets a node field's value.
     *
     * @param name a node field of the layout, for example {@code "worker"}
     * @param value from 0 to the field's maximum
     * @return this builder
     */
    public Builder node(String name, long value) {
      node.put(nodeName(name), value);
      return this;
    }

    /**
     * Sets a node field's value from text: a number, {@code "auto"} (the first free value of the
     * pool in {@link #stateDir(Path)}), {@code "host"} (the ordinal ending the host name, {@code
     * orders-7} → 7) or {@code "env:NAME"} (the number in the environment variable {@code NAME}:
     * Kubernetes' {@code JOB_COMPLETION_INDEX} in an Indexed Job, or a pod index label exposed
     * through the Downward API).
     *
     * @param name a node field of the layout
     * @param value the text
     * @return this builder
     */
    public Builder node(String name, String value) {
      node.put(nodeName(name), nodeValue(value));
      return this;
    }

    /**
     * Sets the value of the layout's only node field ({@link #build()} refuses it when the layout
     * has not exactly one).
     *
     * @param value from 0 to the field's maximum
     * @return this builder
     */
    public Builder node(long value) {
      node.put(null, value);
      return this;
    }

    /**
     * Sets the value of the layout's only node field from text, as {@link #node(String, String)}.
     *
     * @param value a number, {@code "auto"}, {@code "host"} or {@code "env:NAME"}
     * @return this builder
     */
    public Builder node(String value) {
      node.put(null, nodeValue(value));
      return this;
    }

    private static String nodeName(String name) {
      return Snowflake.given(
          name,
          "name",
          "Generator.Builder.node",
          "name a node field of the layout (worker), or give the value alone with node(value)");
    }

    private static String nodeValue(String value) {
      return Snowflake.given(
          value,
          "value",
          "Generator.Builder.node",
          "give a number, \"auto\", \"host\" or \"env:NAME\"");
    }

    /**
     * Sets an option by name, in any casing ({@code "maxWait"}, {@code "max_wait"}); {@link
     * Generator#options()} lists them. The value is a {@link Boolean}, a {@link Number} (a duration
     * in ms, a fraction rounding up), a {@link String} ({@code "250ms"}, {@code "1.5s"}, {@code
     * "borrow"}, {@code "true"}), a {@link Duration}, a {@link Path} or a {@link TimeSource};
     * {@code null} restores the default. The core checks it at {@link #build()}: an unknown option
     * or a value it does not take is an {@link InvalidArgumentException}.
     *
     * @param name the option
     * @param value its value, or null for the default
     * @return this builder
     * @throws InvalidArgumentException for a value of another Java type
     */
    public Builder option(String name, Object value) {
      options.put(
          Snowflake.given(
              name,
              "name",
              "Generator.Builder.option",
              "name an option (Generator.options() lists them)"),
          coreValue(name, value));
      return this;
    }

    // <!-- generated: setters -->
    /**
     * What to do when the wall clock goes backwards. Default: {@code "default"}.
     *
     * @param rollback its name; null for the default
     * @return this builder
     */
    public Builder rollback(String rollback) {
      return option("rollback", rollback);
    }

    /**
     * Longest wait for the clock to catch up after it steps back. Takes a duration, 0 to 1 day.
     * Default: the strategy's: 5 ms (default, switch), 0 ms (error, clock), 1000 ms (wait, borrow).
     *
     * @param maxWait the duration, rounded up to the next whole millisecond; null for the default
     * @return this builder
     */
    public Builder maxWait(Duration maxWait) {
      return option("maxWait", maxWait);
    }

    /**
     * How far ahead of the clock IDs may be issued. Takes a duration, 0 to 1 day. Default: the
     * strategy's: 0 ms (default, error, wait, clock, switch), 1000 ms (borrow).
     *
     * @param maxDrift the duration, rounded up to the next whole millisecond; null for the default
     * @return this builder
     */
    public Builder maxDrift(Duration maxDrift) {
      return option("maxDrift", maxDrift);
    }

    /**
     * Start each tick's sequence at a random value in its lower half. Default: {@code false}.
     *
     * @param randomStart {@code true} or {@code false}
     * @return this builder
     */
    public Builder randomStart(boolean randomStart) {
      return option("randomStart", randomStart);
    }

    /**
     * Wall: read the wall clock on every call; monotonic: read it once; counter: read it when the
     * processor's counter shows its tick over. Default: {@code "wall"}.
     *
     * @param timeSource the value; null for the default
     * @return this builder
     */
    public Builder timeSource(TimeSource timeSource) {
      return option("timeSource", timeSource);
    }

    /**
     * Wall: read the wall clock on every call; monotonic: read it once; counter: read it when the
     * processor's counter shows its tick over. Default: {@code "wall"}.
     *
     * @param timeSource its name; null for the default
     * @return this builder
     */
    public Builder timeSource(String timeSource) {
      return option("timeSource", timeSource);
    }

    /**
     * Folder of lock and state files: restarts, the pool (auto), the mark. Takes a folder. Default:
     * none.
     *
     * @param stateDir the folder; null for the default
     * @return this builder
     */
    public Builder stateDir(Path stateDir) {
      return option("stateDir", stateDir);
    }

    /**
     * How far ahead the state file's high-water mark is reserved. Takes a duration, 1 ms to 1 hour.
     * Default: 1000 ms.
     *
     * @param stateReserve the duration, rounded up to the next whole millisecond; null for the
     *     default
     * @return this builder
     */
    public Builder stateReserve(Duration stateReserve) {
      return option("stateReserve", stateReserve);
    }

    /**
     * Claim the node value host-wide: refuse a second live generator that could issue the same IDs.
     * Default: {@code true}.
     *
     * @param guard {@code true} or {@code false}
     * @return this builder
     */
    public Builder guard(boolean guard) {
      return option("guard", guard);
    }

    /**
     * How long a leased node value is held by the database's clock (renewed at a third of it).
     * Takes a duration, 1 s to 1 hour. Default: 15000 ms.
     *
     * @param leaseDuration the duration, rounded up to the next whole millisecond; null for the
     *     default
     * @return this builder
     */
    public Builder leaseDuration(Duration leaseDuration) {
      return option("leaseDuration", leaseDuration);
    }

    /**
     * The instance's stable key: its last leased value is taken again when free. Takes text, 1 to
     * 120 characters. Default: none.
     *
     * @param leaseKey the text; null for the default
     * @return this builder
     */
    public Builder leaseKey(String leaseKey) {
      return option("leaseKey", leaseKey);
    }

    // <!-- end generated -->

    /**
     * The PostgreSQL a node value {@code "lease"} is leased from ({@code node("worker", "lease")}
     * or {@code SNOWFLAKE_WORKER=lease}; docs/leases.md), through the PostgreSQL JDBC driver
     * ({@code org.postgresql:postgresql}, the application's): a {@code jdbc:postgresql:} URL, or a
     * {@code postgresql://} or {@code postgres://} URL as the other languages take (its user and
     * password become the driver's). Without it (or {@link #lease(DataSource)}), {@code
     * SNOWFLAKE_LEASE_URL}.
     *
     * <p>{@link #build()} acquires the value (waiting at most a lease when the database cannot be
     * reached, then {@link WorkerUnavailableException}), a daemon thread renews it at a third of
     * the lease on a connection of its own (statements time out at a third of the lease,
     * connections after 2 s), and {@link Generator#close()} gives it back. Past a lease without a
     * renewal, calls throw {@link LeaseExpiredException} until one succeeds.
     *
     * @param url the database's URL; null for {@code SNOWFLAKE_LEASE_URL}
     * @return this builder
     */
    public Builder lease(String url) {
      this.leaseDatabase = url;
      return this;
    }

    /**
     * The PostgreSQL a node value {@code "lease"} is leased from, as {@link #lease(String)}: each
     * statement borrows a connection of the application's pool and gives it back at once.
     *
     * @param dataSource the database
     * @return this builder
     */
    public Builder lease(DataSource dataSource) {
      this.leaseDatabase =
          Snowflake.given(
              dataSource,
              "dataSource",
              "Generator.Builder.lease",
              "give the application's DataSource, or lease(url) with a URL");
      return this;
    }

    /**
     * Creates the generator.
     *
     * @return the generator; close it to release its node value
     * @throws InvalidLayoutException when the preset, layout spec or epoch is not valid
     * @throws InvalidArgumentException when the preset, spec and epoch do not go together, a node
     *     value is missing, unknown or out of range, or an option is unknown or out of range
     * @throws WorkerUnavailableException when the node values are held by another live generator
     *     (the guard, or the state directory's lock) or the pool is full, or a leased node value
     *     cannot be acquired (every value held, or the database not reached within a lease)
     * @throws StateErrorException when the state directory cannot be used, or the guard cannot take
     *     its claim
     */
    public Generator build() {
      long l = make(Native.MAKE_LEASE, 0);
      if (l == 0) {
        long h = make(Native.MAKE_GENERATOR, 0);
        return new Generator(h, null);
      }
      LeaseHost host = LeaseHost.of(l, leaseDatabase); // frees l when it fails
      long h;
      try {
        host.acquire();
        h = make(Native.MAKE_LEASED, l);
      } catch (RuntimeException | Error e) {
        host.giveBack(); // a value taken but never used goes back at once
        Native.leaseFree(l);
        throw e;
      }
      Generator g = new Generator(h, host); // gives back and frees both when it fails
      host.start(g);
      return g;
    }

    /** Native.make on this builder's values. */
    private long make(int kind, long lease) {
      return Native.make(
          kind,
          lease,
          new Object[] {
            "preset", preset, "layout", layout == null ? spec : layout.raw(), "epoch", epoch
          },
          new Object[] {"node", pairs(node)},
          pairs(options));
    }

    /** A map as the natives take one: {@code Object[]{key, value, …}}. */
    private static Object[] pairs(Map<String, Object> map) {
      Object[] out = new Object[2 * map.size()];
      int i = 0;
      for (Map.Entry<String, Object> e : map.entrySet()) {
        out[i++] = e.getKey();
        out[i++] = e.getValue();
      }
      return out;
    }

    /**
     * A Java value as one the natives take: null, Boolean, Long, Double, String, Duration, or a
     * path as the file-system bytes the core takes.
     */
    private static Object coreValue(String name, Object value) {
      if (value == null
          || value instanceof Boolean
          || value instanceof Long
          || value instanceof Double
          || value instanceof String
          || value instanceof Duration) {
        return value;
      }
      if (value instanceof Integer
          || value instanceof Short
          || value instanceof Byte
          || value instanceof AtomicInteger
          || value instanceof AtomicLong
          || (value instanceof BigInteger b && b.bitLength() < Long.SIZE)) {
        return ((Number) value).longValue();
      }
      if (value instanceof Number n) {
        return n.doubleValue();
      }
      if (value instanceof Path p) {
        return p.toString().getBytes(Facts.NATIVE_CHARSET);
      }
      if (value instanceof Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
      }
      throw new InvalidArgumentException(
          name
              + " must be a Boolean, Number, String, Duration or Path, not a "
              + value.getClass().getName());
    }
  }
}
