package io.snowflakec;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import org.opentest4j.TestAbortedException;

/**
 * The binding's real API driven as a state machine (jqwik's action chains), against a model of what
 * each call may do. Each try builds generators of a few layouts — one with a clock field, one of 1
 * s ticks, node values from a small set whose bits meet across layouts — with options drawn at
 * random (rollback strategy, time source, random start, the guard, a state folder, a pool), and
 * runs a chain of actions on them: nextId, the three forms of nextIds, nextIdAt and nextIdsAt,
 * stats, decode, close from the same thread, close from another thread while a call waits or
 * issues, a second generator of a held value, a value taken over once its holder closes, a
 * generator dropped to the Cleaner, and every call on a closed generator.
 *
 * <p>After every action: no integer issued twice by the clock, across every generator of the
 * property's run (all its tries: a value's next holder starts after its last holder); the IDs of a
 * generator increasing (but across a clock bump or a switch of pool value); every ID decoding to
 * its generator's node values; a generator of a value a live generator of this JVM could issue
 * refused with {@link WorkerUnavailableException} naming this process — but the same layout and
 * node values made again, which take the value over, the older one's calls then saying so — any
 * other started (a pool taking the first free value); the stats counting exactly the IDs issued;
 * every call on a closed generator answering {@link InvalidArgumentException} with the core's
 * words. IDs issued at the caller's times (nextIdAt) are no part of the uniqueness check: they are
 * not handed over (the README's guard section).
 *
 * <p>Every layout is at the run's epoch ({@link RunEpoch}), and the node values are a band that no
 * other class of the suite uses. Size: {@code SNOWFLAKEC_STATE_TRIES} tries (default {@value
 * #TRIES_DEFAULT}, or the system property {@code snowflakec.stateTries}: the pom gives the second
 * run of the suite, through the FFM calls, a third of them) of {@code SNOWFLAKEC_STATE_ACTIONS}
 * actions (default {@value #ACTIONS_DEFAULT}); {@code SNOWFLAKEC_STATE_SEED} replays the seed a
 * failure printed.
 */
class StateMachineTest {
  static final int TRIES_DEFAULT = 32;
  static final int ACTIONS_DEFAULT = 40;
  static final int TRIES =
      sizeFromEnv(
          "SNOWFLAKEC_STATE_TRIES", Integer.getInteger("snowflakec.stateTries", TRIES_DEFAULT));
  static final int ACTIONS = sizeFromEnv("SNOWFLAKEC_STATE_ACTIONS", ACTIONS_DEFAULT);

  static final String CLOSED = "the generator is closed: create a new one";
  static final long PID = ProcessHandle.current().pid();

  // At most this many generators live at once, and closed ones kept for calls on them.
  static final int MAX_LIVE = 8;
  static final int MAX_CLOSED = 6;

  // A caller-timed ID this far ahead of the clock: a generator of rollback=wait and maxWait of a
  // day waits for it, so that only close() can end its next live call.
  static final long FAR_AHEAD_US = 3_600_000_000L;

  // How far a generator's clock may run from the wall clock's over a try, beyond the offset read at
  // its start (its time source's rate against the wall clock's).
  static final long CLOCK_SLACK_MS = 5;

  // Hang guards, never verdicts on speed: how long a thread may take to end once its generator is
  // closed (it would otherwise wait an hour), and how long the Cleaner may take to give a dropped
  // generator's value back.
  static final long HANG_MS = 60_000;

  // Every FORCED_EVERY-th try makes its action number FORCED_AT + 1 a successor (Run#forced), of
  // each holder in turn.
  static final int FORCED_EVERY = 8;
  static final int FORCED_AT = 4;

  private static int sizeFromEnv(String name, int otherwise) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? otherwise : Integer.parseInt(v.trim());
  }

  // No shrinking: a chain run again meets another clock, other hand-overs and other state files,
  // so a shorter one need not fail as the longer did, and a bounded shrink leaves its last chain
  // running past the bound. A failure prints the try's own steps instead, the generators named.
  @Property(shrinking = ShrinkingMode.OFF) // tries: Budget
  @AddLifecycleHook(Budget.class)
  void everyCallKeepsTheModel(@ForAll("chains") ActionChain<Run> chain) {
    try {
      chain.withInvariant("the model", Run::check).run();
    } finally {
      Run.end();
    }
  }

  @Provide
  Arbitrary<ActionChain<Run>> chains() {
    Arbitrary<Integer> slot = Arbitraries.integers().between(0, MAX_LIVE - 1);
    Arbitrary<Integer> choice = Arbitraries.integers().between(0, 999);
    return ActionChain.<Run>startWith(Run::new)
        .withAction(16, when(Run::roomForMore, config().map(Run::buildAction)))
        .withAction(
            4,
            when(
                Run::anyLive,
                Combinators.combine(slot, choice)
                    .as((s, c) -> mutate("contend #" + s + " as " + c, r -> r.contend(s, c)))))
        .withAction(4, onLive(slot, "takeOver", Run::takeOver))
        .withAction(2, onLive(slot, "again", Run::again))
        .withAction(1, successor(choice))
        .withAction(16, onLive(slot, "nextId", Run::nextId))
        .withAction(
            10,
            when(
                Run::anyLive,
                Combinators.combine(
                        slot,
                        Arbitraries.of(0, 1, 2, 7, 300, 2000),
                        Arbitraries.integers().between(0, 2))
                    .as(
                        (s, n, form) ->
                            mutate(
                                "nextIds #" + s + " n=" + n + " form=" + form,
                                r -> r.nextIds(s, n, form)))))
        .withAction(
            8,
            when(
                Run::anyLive,
                Combinators.combine(
                        slot,
                        Arbitraries.of(-2_000_000L, -3_000L, 0L, 2_000L, 30_000L),
                        Arbitraries.of(1, 1, 5))
                    .as(
                        (s, off, n) ->
                            mutate(
                                "nextIdAt #"
                                    + s
                                    + " clock"
                                    + (off < 0 ? "" : "+")
                                    + off
                                    + "us n="
                                    + n,
                                r -> r.nextIdAt(s, off, n)))))
        .withAction(4, onLive(slot, "stats", Run::stats))
        .withAction(
            4,
            when(
                Run::anyLive,
                Combinators.combine(slot, choice)
                    .as((s, c) -> mutate("decode #" + s + " id " + c, r -> r.decode(s, c)))))
        .withAction(6, onLive(slot, "close", Run::close))
        .withAction(
            4,
            when(
                Run::anyWaitable,
                Combinators.combine(slot, Arbitraries.integers().between(0, 2))
                    .as(
                        (s, v) ->
                            mutate(
                                "closeWhileWaiting #" + s + " call " + v,
                                r -> r.closeWhileWaiting(s, v)))))
        .withAction(
            4,
            when(
                Run::anyLive,
                Combinators.combine(slot, Arbitraries.integers().between(0, 1))
                    .as(
                        (s, v) ->
                            mutate(
                                "closeWhileIssuing #" + s + " call " + v,
                                r -> r.closeWhileIssuing(s, v)))))
        .withAction(2, onLive(slot, "drop", Run::drop))
        .withAction(
            2,
            when(Run::anyClosed, slot.map(s -> mutate("dropClosed #" + s, r -> r.dropClosed(s)))))
        .withAction(
            6,
            when(
                Run::anyClosed,
                Combinators.combine(slot, Arbitraries.integers().between(0, ClosedCall.COUNT - 1))
                    .as(
                        (s, k) ->
                            mutate(
                                "callClosed #" + s + " " + ClosedCall.name(k),
                                r -> r.callClosed(s, k)))))
        .withMaxTransformations(ACTIONS);
  }

  /**
   * A value's next holder whose first call is at a caller's time, at or behind the clock, then
   * calls from the clock ({@link Run#successor}). Drawn at random, and in every try that {@link
   * Run#forced} picks the only action once the try has made {@value #FORCED_AT} others: each normal
   * run meets each holder of {@link Successor} several times, whatever the draw.
   */
  private static Action.Dependent<Run> successor(Arbitrary<Integer> choice) {
    return new Action.Dependent<>() {
      @Override
      public Arbitrary<Transformer<Run>> transformer(Run r) {
        Arbitrary<Successor> holder =
            r.successorDue()
                ? Arbitraries.just(r.forced)
                : Arbitraries.frequency(
                    Tuple.of(1, Successor.ONE_SECOND_TICKS),
                    Tuple.of(2, Successor.BORROWED_TICKS),
                    Tuple.of(2, Successor.LIVE));
        return Combinators.combine(
                holder, choice, Arbitraries.of(0L, -3_000L, -2_000_000L), Arbitraries.of(1, 1, 5))
            .as(
                (h, c, off, n) ->
                    mutate(
                        "successor of "
                            + h
                            + " #"
                            + c
                            + ", first "
                            + (n == 1 ? "nextIdAt" : "nextIdsAt n=" + n)
                            + " clock"
                            + (off < 0 ? "" : "+")
                            + off
                            + "us"
                            + (r.successorDue() ? " (forced)" : ""),
                        s -> s.successor(h, c, off, n)));
      }
    };
  }

  /**
   * The holder {@link Run#successor} closes: one whose IDs its successor's clock IDs would repeat
   * if that successor's first ID at a caller's time dropped what the holder handed over.
   */
  enum Successor {
    /** SECONDS: the holder's IDs are in the tick the clock is still in (1 s). */
    ONE_SECOND_TICKS,
    /** FLAT with rollback=borrow: a batch that borrows ticks ahead of the clock. */
    BORROWED_TICKS,
    /** A live generator of the try, whatever its recipe (ONE_SECOND_TICKS where none is). */
    LIVE;

    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }
  }

  private interface SlotAction {
    void run(Run r, int slot);
  }

  private static Transformer<Run> mutate(String what, java.util.function.Consumer<Run> f) {
    return Transformer.mutate(
        what,
        r -> {
          r.steps++;
          try {
            f.accept(r);
          } catch (StateErrorException e) {
            throw r.failure("StateError: " + e.getMessage());
          }
        });
  }

  private static Action.Independent<Run> onLive(
      Arbitrary<Integer> slot, String name, SlotAction a) {
    return when(Run::anyLive, slot.map(s -> mutate(name + " #" + s, r -> a.run(r, s))));
  }

  private static Action.Independent<Run> when(
      Predicate<Run> precondition, Arbitrary<Transformer<Run>> transformers) {
    return new Action.Independent<>() {
      @Override
      public boolean precondition(Run r) {
        return !r.successorDue() && precondition.test(r);
      }

      @Override
      public Arbitrary<Transformer<Run>> transformer() {
        return transformers;
      }
    };
  }

  /** A generator's recipe, from ten choices (each shrinking towards 0, the plainest). */
  static Arbitrary<Config> config() {
    return Arbitraries.integers().between(0, 999).list().ofSize(10).map(Config::of);
  }

  // ---- the layouts and their node values -------------------------------------------------

  /** A pool value ("auto"), where a node value is a number otherwise. */
  static final long AUTO = -1;

  /**
   * The layouts. All but SECONDS share one ID space (63 bits, the time in ms at one place), where
   * their node values meet: FLAT worker 705 is TWITTER datacenter 22, worker 1, and CLOCKED worker
   * 193 under clock value 2; LOW (its node field below the sequence) meets every one of them.
   * SECONDS' 49-bit IDs cannot meet theirs from now on.
   */
  enum Kind {
    FLAT("time:41@1ms,worker:10,seq:12", new long[][] {{705}, {706}, {737}, {961}, {AUTO}}),
    TWITTER(
        "time:41@1ms,datacenter:5,worker:5,seq:12",
        new long[][] {{22, 1}, {22, 2}, {23, 1}, {22, AUTO}}),
    CLOCKED("time:41@1ms,clock:2,worker:8,seq:12", new long[][] {{193}, {194}}),
    LOW("time:41@1ms,seq:12,worker:10", new long[][] {{705}, {706}}),
    SECONDS("time:32@1s,worker:3,seq:14", new long[][] {{5}, {6}});

    final String spec;
    final long[][] values;
    final Layout layout;
    final List<Layout.Field> nodeFields;

    Kind(String spec, long[][] values) {
      this.spec = spec;
      this.values = values;
      this.layout = RunEpoch.layout(spec);
      this.nodeFields = layout.fields().stream().filter(f -> f.kind() == Layout.Kind.NODE).toList();
    }

    /** Drawn 4 in 12 FLAT, 3 TWITTER, 2 CLOCKED, 1 LOW, 2 SECONDS. */
    static Kind of(int c) {
      int k = c % 12;
      return k < 4 ? FLAT : k < 7 ? TWITTER : k < 9 ? CLOCKED : k < 10 ? LOW : SECONDS;
    }

    boolean hasClock() {
      return layout.fields().stream().anyMatch(f -> f.kind() == Layout.Kind.CLOCK);
    }

    /** The bits a generator with these node values fixes, and their values. */
    Bits bits(Map<String, Long> nodes) {
      long mask = 0;
      long value = 0;
      for (Layout.Field f : nodeFields) {
        mask |= f.max() << f.shift();
        value |= nodes.get(f.name()) << f.shift();
      }
      return new Bits(layout.unitUs(), mask, value);
    }
  }

  /**
   * What a generator fixes of its IDs: its node bits. Two generators of one ID space (here: one
   * time unit) could issue one integer when their fixed bits agree wherever both fix one.
   */
  record Bits(long unitUs, long mask, long value) {
    boolean meets(Bits o) {
      return unitUs == o.unitUs && ((value ^ o.value) & mask & o.mask) == 0;
    }
  }

  /** A generator's recipe: its layout, node values, options and the forms the builder is given. */
  record Config(
      Kind kind,
      long[] values,
      String rollback,
      Duration maxWait,
      Duration maxDrift,
      TimeSource timeSource,
      Boolean randomStart,
      Boolean guard,
      String stateDir,
      Duration stateReserve,
      int form) {

    static Config of(List<Integer> c) {
      Kind kind = Kind.of(c.get(0));
      long[] values = kind.values[c.get(1) % kind.values.length];
      boolean pool = Arrays.stream(values).anyMatch(v -> v == AUTO);
      List<String> rollbacks = new ArrayList<>(List.of("default", "wait", "error", "borrow"));
      if (kind.hasClock()) {
        rollbacks.add("clock");
      }
      if (pool) {
        rollbacks.add("switch");
      }
      String rollback = rollbacks.get(c.get(2) % rollbacks.size());
      Duration maxWait =
          new Duration[] {null, null, Duration.ofDays(1), Duration.ofMillis(20)}[c.get(3) % 4];
      Duration maxDrift = new Duration[] {null, null, Duration.ofMillis(50)}[c.get(4) % 3];
      TimeSource time =
          new TimeSource[] {null, TimeSource.WALL, TimeSource.MONOTONIC, TimeSource.COUNTER}
              [c.get(5) % 4];
      Boolean randomStart = new Boolean[] {null, false, true}[c.get(6) % 3];
      Boolean guard = c.get(7) % 2 == 0 ? null : true;
      String dir =
          pool
              ? new String[] {"a", "b"}[c.get(8) % 2]
              : new String[] {null, null, "a", "b"}[c.get(8) % 4];
      Duration reserve = dir != null && c.get(9) % 2 == 1 ? Duration.ofMillis(20) : null;
      return new Config(
          kind,
          values,
          rollback,
          maxWait,
          maxDrift,
          time,
          randomStart,
          guard,
          dir,
          reserve,
          c.get(9) / 2);
    }

    /** The same layout with fixed node values and no option. */
    static Config plain(Kind kind, long[] values, int form) {
      return new Config(kind, values, "default", null, null, null, null, null, null, null, form);
    }

    boolean pool() {
      return Arrays.stream(values).anyMatch(v -> v == AUTO);
    }

    Generator.Builder builder(Path stateRoot) {
      Generator.Builder b = Generator.builder();
      if (form % 2 == 0) {
        b.layout(kind.layout);
      } else {
        b.layout(kind.spec).epoch(RunEpoch.MS);
      }
      List<Layout.Field> fields = kind.nodeFields;
      for (int i = 0; i < fields.size(); i++) {
        String name = fields.get(i).name();
        long v = values[i];
        if (v == AUTO) {
          b.node(name, "auto");
        } else if (fields.size() == 1 && form / 2 % 3 == 1) {
          b.node(v);
        } else if (form / 2 % 3 == 2) {
          b.node(name, Long.toString(v));
        } else {
          b.node(name, v);
        }
      }
      boolean typed = form / 6 % 2 == 0;
      Map<String, Object> options = new LinkedHashMap<>();
      if (!"default".equals(rollback) || form / 12 % 2 == 1) {
        options.put("rollback", rollback);
      }
      options.put("maxWait", maxWait);
      options.put("maxDrift", maxDrift);
      options.put("timeSource", timeSource);
      options.put("randomStart", randomStart);
      options.put("guard", guard);
      options.put("stateDir", stateDir == null ? null : stateRoot.resolve(kind + "-" + stateDir));
      options.put("stateReserve", stateReserve);
      for (Map.Entry<String, Object> o : options.entrySet()) {
        Object v = o.getValue();
        if (v == null) {
          continue;
        }
        if (!typed) {
          b.option(o.getKey(), v instanceof Duration d ? d.toMillis() + "ms" : v);
          continue;
        }
        switch (o.getKey()) {
          case "rollback" -> b.rollback((String) v);
          case "maxWait" -> b.maxWait((Duration) v);
          case "maxDrift" -> b.maxDrift((Duration) v);
          case "timeSource" -> b.timeSource((TimeSource) v);
          case "randomStart" -> b.randomStart((Boolean) v);
          case "guard" -> b.guard((Boolean) v);
          case "stateDir" -> b.stateDir((Path) v);
          case "stateReserve" -> b.stateReserve((Duration) v);
          default -> throw new AssertionError(o.getKey());
        }
      }
      return b;
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder(kind.name());
      for (int i = 0; i < values.length; i++) {
        s.append(i == 0 ? " " : ",")
            .append(kind.nodeFields.get(i).name())
            .append('=')
            .append(values[i] == AUTO ? "auto" : Long.toString(values[i]));
      }
      s.append(" rollback=").append(rollback);
      if (maxWait != null) {
        s.append(" maxWait=").append(maxWait.toMillis()).append("ms");
      }
      if (maxDrift != null) {
        s.append(" maxDrift=").append(maxDrift.toMillis()).append("ms");
      }
      if (timeSource != null) {
        s.append(" timeSource=").append(timeSource);
      }
      if (randomStart != null) {
        s.append(" randomStart=").append(randomStart);
      }
      if (guard != null) {
        s.append(" guard=").append(guard);
      }
      if (stateDir != null) {
        s.append(" stateDir=").append(stateDir);
      }
      if (stateReserve != null) {
        s.append(" stateReserve=").append(stateReserve.toMillis()).append("ms");
      }
      return s.append(" form=").append(form).toString();
    }
  }

  // ---- the model ---------------------------------------------------------------------------

  /** One generator of the run, and what the model knows of it. */
  static final class Gen {
    final String name;
    final Config config;
    Generator g; // null once dropped
    final Layout layout;
    Map<String, Long> nodes; // the values it holds now
    Bits bits;
    // Values a switch left: held until the clock passes their mark, so either held or not.
    final List<Bits> leaving = new ArrayList<>();
    final Set<Map<String, Long>> everHeld = new HashSet<>();
    final String rollback; // the strategy in force
    final long maxWaitMs;
    long issued; // every ID it issued, the clock's and the caller's
    long lastClockId; // 0 before the first
    long lastChanges; // clock bumps + node switches when lastClockId was issued
    // The start of the latest tick of its IDs (Unix ms): by the clock, and by the clock or at a
    // caller's time; and the latest handed over to it by earlier holders of values it meets.
    long clockTickMs = Long.MIN_VALUE;
    long tickMs = Long.MIN_VALUE;
    long handedTickMs = Long.MIN_VALUE;
    boolean callerTimed;
    // Its clock less the wall clock's, read at its start: its time source may be another clock.
    final long clockOffsetMs;
    final long[] recent = new long[8]; // IDs to decode again
    int recentCount;

    Gen(String name, Config config, Generator g) {
      this.name = name;
      this.config = config;
      this.g = g;
      this.layout = g.layout();
      Stats s = g.stats();
      this.nodes = s.nodes();
      this.bits = config.kind.bits(nodes);
      this.everHeld.add(nodes);
      Run.EVER.add(bits);
      this.rollback = s.rollback();
      this.maxWaitMs = s.maxWaitMs();
      this.lastChanges = s.clockBumps() + s.nodeSwitches();
      this.clockOffsetMs = g.nowUs() / 1000 - System.currentTimeMillis();
      for (Map.Entry<Bits, Long> h : Run.HANDED.entrySet()) {
        if (h.getKey().meets(bits)) {
          handedTickMs = Math.max(handedTickMs, h.getValue());
        }
      }
    }

    /** Notes the tick of an ID it issued (the latest of a call's). */
    void issuedAt(long id, boolean clock) {
      long ms = Snowflake.decode(id, layout).timeMs();
      tickMs = Math.max(tickMs, ms);
      if (clock) {
        clockTickMs = Math.max(clockTickMs, ms);
      }
    }

    /**
     * What it hands over as it lets go of its values: its last tick by the clock (with a state
     * folder, whose file keeps the last tick of the state word, any last tick). Once it issued at a
     * caller's time the core cannot tell those IDs from the clock's, so the record it wrote ahead
     * stands (guard.c): up to a reserve past its latest tick or its clock at its last call, which
     * is before now.
     */
    void handOver() {
      long last = config.stateDir() == null ? clockTickMs : tickMs;
      if (callerTimed) {
        long nowMs = System.currentTimeMillis() + clockOffsetMs + CLOCK_SLACK_MS;
        last = Math.max(last, Math.max(tickMs, nowMs) + handoverReserveMs(layout));
      }
      Run.HANDED.merge(bits, last, Math::max);
      for (Bits b : leaving) {
        Run.HANDED.merge(b, last, Math::max);
      }
    }

    /** The reserve the core's record is written ahead by: 16 ms in whole ticks (generator.c). */
    static long handoverReserveMs(Layout layout) {
      long unitUs = layout.unitUs();
      return 16_000 / unitUs * unitUs / 1000;
    }

    boolean waitable() {
      return rollback.equals("wait") && maxWaitMs == 86_400_000L && config.stateDir() == null;
    }

    void remember(long id) {
      recent[recentCount++ % recent.length] = id;
    }

    @Override
    public String toString() {
      return name + "(" + config + ", nodes " + nodes + ")";
    }
  }

  /** IDs one call issued, checked by the invariant. */
  record Issue(Gen gen, long[] ids, int from, int count, boolean clock, long changes) {}

  /** The calls made on a closed generator. */
  static final class ClosedCall {
    static final String[] NAMES = {
      "nextId",
      "nextIds(n)",
      "nextIds(dst)",
      "nextIds(dst,off,len)",
      "nextIdAt",
      "nextIdsAt",
      "stats",
      "nowUs",
      "layout",
      "asLongSupplier",
      "close",
    };
    static final int COUNT = NAMES.length;

    static String name(int k) {
      return NAMES[k];
    }
  }

  /**
   * Every ID issued by the clock in this property's run (every try): open addressing over longs, 0
   * for an empty slot (no ID is 0).
   */
  static final class LongSet {
    private long[] table = new long[1 << 16];
    private int size;

    boolean add(long v) {
      if (2 * (size + 1) > table.length) {
        long[] old = table;
        table = new long[old.length * 2];
        size = 0;
        for (long x : old) {
          if (x != 0) {
            add(x);
          }
        }
      }
      int mask = table.length - 1;
      for (int i = slot(v) & mask; ; i = (i + 1) & mask) {
        if (table[i] == 0) {
          table[i] = v;
          size++;
          return true;
        }
        if (table[i] == v) {
          return false;
        }
      }
    }

    int size() {
      return size;
    }

    private static int slot(long v) {
      long h = v * 0x9E3779B97F4A7C15L;
      return (int) (h ^ (h >>> 29));
    }
  }

  /** The state a chain transforms: the run's generators and the model of each. */
  static final class Run {
    // Across the property's tries.
    static final LongSet ISSUED = new LongSet();
    static final Map<String, AtomicLong> TALLY = new ConcurrentHashMap<>();
    static final List<String> FOREIGN = new ArrayList<>();
    static final Set<Bits> EVER = new HashSet<>(); // every value held in the run
    // The latest tick of the IDs of generators let go of, by value: what their successors start
    // after (an upper bound).
    static final Map<Bits, Long> HANDED = new ConcurrentHashMap<>();
    static Path stateRoot;
    static Run current;

    final List<Gen> live = new ArrayList<>();
    final List<Gen> closed = new ArrayList<>();
    final List<Issue> pending = new ArrayList<>();
    final List<String> log = new ArrayList<>();
    int made;
    int steps; // actions run so far
    static int tries; // tries started
    // The holder of the successor this try must make, or null (done, or not this try).
    Successor forced;

    Run() {
      end(); // a try that failed before its end left its generators
      current = this;
      int t = tries++;
      if (t % FORCED_EVERY == 0) {
        forced = Successor.values()[t / FORCED_EVERY % Successor.values().length];
      }
    }

    /** Whether the successor this try must make is due: the only action then. */
    boolean successorDue() {
      return forced != null && steps >= Math.min(FORCED_AT, ACTIONS - 1);
    }

    /** Closes what a try left open (the model's generators are closed or handed on). */
    static void end() {
      Run r = current;
      current = null;
      if (r != null) {
        for (Gen x : r.live) {
          if (x.g != null) {
            x.g.close();
            x.handOver();
          }
        }
        r.live.clear();
        r.closed.clear();
      }
    }

    static void tally(String what) {
      TALLY.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    boolean anyLive() {
      return !live.isEmpty();
    }

    boolean roomForMore() {
      return live.size() < MAX_LIVE;
    }

    boolean anyClosed() {
      return !closed.isEmpty();
    }

    boolean anyWaitable() {
      return live.stream().anyMatch(Gen::waitable);
    }

    Gen pick(int slot) {
      return live.get(slot % live.size());
    }

    void note(String line) {
      log.add(line);
    }

    @Override
    public String toString() {
      return "Run[" + live.size() + " live: " + live + "]";
    }

    AssertionError failure(String message) {
      int from = Math.max(0, log.size() - 30);
      return new AssertionError(
          message
              + "\nthe try so far (last 30 steps):\n  "
              + String.join("\n  ", log.subList(from, log.size())));
    }

    void expect(boolean ok, String message) {
      if (!ok) {
        throw failure(message);
      }
    }

    // ---- building ----

    static Transformer<Run> buildAction(Config c) {
      return mutate("build " + c, r -> r.build(c));
    }

    static final Pattern LIVE_HOLDER = Pattern.compile("held by live process \\d+\\b");

    /** A holder that does not answer, named by its uid: this process's user. */
    static final Pattern UNANSWERED_OURS =
        Pattern.compile("held by a process of uid " + ownUid() + " that does not answer");

    /** This process's uid, as the kernel gives it (its /proc entry's owner). */
    static int ownUid() {
      try {
        return (Integer)
            java.nio.file.Files.getAttribute(java.nio.file.Path.of("/proc/self"), "unix:uid");
      } catch (java.io.IOException | UnsupportedOperationException e) {
        return -1; // no such holder is then accepted
      }
    }

    /** Whether a refusal names this process as the holder. */
    static boolean namesThisProcess(String message) {
      return Pattern.compile("live process " + PID + "\\b").matcher(message).find();
    }

    /** The live generators that could issue an integer of `bits`. */
    List<Gen> holders(Bits bits) {
      return live.stream().filter(x -> x.bits.meets(bits)).toList();
    }

    boolean maybeHeld(Bits bits) {
      return live.stream().anyMatch(x -> x.leaving.stream().anyMatch(b -> b.meets(bits)));
    }

    void build(Config c) {
      tally("build");
      Map<String, Long> wanted = new LinkedHashMap<>();
      List<Long> free = new ArrayList<>(); // a pool's candidates, lowest first: any of them may do
      if (!c.pool()) {
        for (int i = 0; i < c.values().length; i++) {
          wanted.put(c.kind().nodeFields.get(i).name(), c.values()[i]);
        }
      } else {
        free = poolCandidates(c);
      }
      List<Gen> holders = c.pool() ? List.of() : holders(c.kind().bits(wanted));
      boolean maybe = !c.pool() && maybeHeld(c.kind().bits(wanted));
      // The same generator made again (its layout and node values: a cell or a reload run
      // twice) takes the value over from the live one, which the core closes.
      List<Gen> same =
          holders.stream()
              .filter(h -> !h.config.pool() && h.config.kind() == c.kind())
              .filter(h -> h.nodes.equals(wanted))
              .toList();
      boolean takingOver = !same.isEmpty() && same.size() == holders.size();
      if (takingOver) {
        holders = List.of();
      }
      Generator g;
      try {
        g = c.builder(stateRoot).build();
      } catch (WorkerUnavailableException e) {
        String m = e.getMessage();
        if (takingOver && maybe) {
          same.forEach(this::takenOver); // closed, then refused by a value a switch left
        }
        if (!holders.isEmpty()) {
          // The guard names one holder: this process, or another program of the host that holds
          // a value meeting this one too (LOW meets every value of its ID space).
          // Or, when the holder's socket does not answer (a full queue, or a name bound and not yet
          // listened on: claim_os_linux.c), its owner: this process's user.
          expect(
              namesThisProcess(m)
                  || LIVE_HOLDER.matcher(m).find()
                  || UNANSWERED_OURS.matcher(m).find(),
              "build " + c + ": refused without naming a live process: " + m);
          note("build " + c + " -> refused (held by " + holders.get(0).name + ")");
          tally(
              namesThisProcess(m)
                  ? "build refused as expected"
                  : "build refused as expected, naming another program of the host");
          return;
        }
        if (maybe || (c.pool() && free.stream().allMatch(v -> maybeHeld(c, v)))) {
          note("build " + c + " -> refused (a value a switch left, or no free one)");
          return;
        }
        if (!namesThisProcess(m)) {
          // Another program of the host holds it: no check of ours can be made on it.
          FOREIGN.add(c + ": " + m);
          note("build " + c + " -> refused by another process: " + m);
          return;
        }
        throw failure("build " + c + ": refused though no live generator holds its value: " + m);
      } catch (StateErrorException e) {
        throw failure("build " + c + ": StateError: " + e.getMessage());
      } catch (SnowflakeException e) {
        throw failure("build " + c + ": " + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      if (takingOver) {
        same.forEach(this::takenOver);
      }
      Gen x = new Gen("g" + made++, c, g);
      try {
        if (!holders.isEmpty()) {
          throw failure(
              "build "
                  + c
                  + ": started beside "
                  + holders.get(0)
                  + ", which could issue the same integers (nodes "
                  + x.nodes
                  + ")");
        }
        if (c.pool()) {
          long taken = x.nodes.get(poolField(c));
          Map<String, String> expectedSources = new LinkedHashMap<>();
          for (int i = 0; i < c.values().length; i++) {
            String name = c.kind().nodeFields.get(i).name();
            expectedSources.put(name, c.values()[i] == AUTO ? "pool" : "explicit");
            if (c.values()[i] != AUTO) {
              expect(
                  x.nodes.get(name) == c.values()[i],
                  "build " + c + ": node " + name + " is " + x.nodes.get(name));
            }
          }
          // The first free value, but for values held before whose marks may be ahead.
          int at = free.indexOf(taken);
          expect(
              at == 0 || (at > 0 && passedOver(c, free.subList(0, at))),
              "build " + c + ": the pool took " + taken + ", not the first free value of " + free);
          expect(
              g.stats().nodeSources().equals(expectedSources),
              "build " + c + ": node sources " + g.stats().nodeSources());
          tally("build from the pool");
        } else {
          expect(x.nodes.equals(wanted), "build " + c + ": nodes " + x.nodes + ", not " + wanted);
          expect(
              g.stats().nodeSources().values().stream().allMatch("explicit"::equals),
              "build " + c + ": node sources " + g.stats().nodeSources());
        }
        expect(holders(x.bits).isEmpty(), "build " + c + ": took " + x.nodes + ", held by another");
        String expectedRollback = c.rollback();
        if (expectedRollback.equals("default")) {
          expect(
              x.rollback.equals(c.kind().hasClock() ? "clock" : "wait"),
              "build " + c + ": rollback in force " + x.rollback);
        } else {
          expect(x.rollback.equals(expectedRollback), "build " + c + ": rollback " + x.rollback);
        }
        if (c.maxWait() != null) {
          expect(x.maxWaitMs == c.maxWait().toMillis(), "build " + c + ": maxWait " + x.maxWaitMs);
        }
      } catch (RuntimeException | Error e) {
        g.close(); // a generator the model does not have: no other action closes it
        throw e;
      }
      live.add(x);
      note("build " + c + " -> " + x.name + " " + x.nodes);
    }

    private static String poolField(Config c) {
      for (int i = 0; i < c.values().length; i++) {
        if (c.values()[i] == AUTO) {
          return c.kind().nodeFields.get(i).name();
        }
      }
      throw new AssertionError(c);
    }

    /** The pool's values that no live generator holds, lowest first. */
    List<Long> poolCandidates(Config c) {
      List<Long> free = new ArrayList<>();
      String field = poolField(c);
      long max = c.kind().layout.field(field).orElseThrow().max();
      for (long v = 0; v <= max; v++) {
        if (holders(c.kind().bits(poolValue(c, v))).isEmpty()) {
          free.add(v);
        }
      }
      return free;
    }

    /**
     * Whether the pool may have passed over these free values: each one held before in this run,
     * whose mark may still be ahead of the clock (a value a switch left, IDs issued ahead, a mark
     * carried over by a switch), and which the pool takes only once every other is held (pool.c). A
     * value never held is never passed over.
     */
    private static boolean passedOver(Config c, List<Long> skipped) {
      return skipped.stream().allMatch(v -> EVER.contains(c.kind().bits(poolValue(c, v))));
    }

    /** The node values of the pool recipe `c` with `v` from the pool. */
    static Map<String, Long> poolValue(Config c, long v) {
      Map<String, Long> m = new LinkedHashMap<>();
      for (int i = 0; i < c.values().length; i++) {
        m.put(c.kind().nodeFields.get(i).name(), c.values()[i] == AUTO ? v : c.values()[i]);
      }
      return m;
    }

    boolean maybeHeld(Config c, long v) {
      return maybeHeld(c.kind().bits(poolValue(c, v)));
    }

    /** A second generator of a value `slot` holds, in a layout drawn by `choice`: refused. */
    void contend(int slot, int choice) {
      tally("contend");
      Gen x = pick(slot);
      List<Kind> kinds =
          Stream.of(Kind.values()).filter(k -> k.layout.unitUs() == x.layout.unitUs()).toList();
      Kind kind = kinds.get(choice % kinds.size());
      List<long[]> meeting = new ArrayList<>();
      forEachValue(
          kind,
          v -> {
            if (kind.bits(nodesOf(kind, v)).meets(x.bits)) {
              meeting.add(v.clone());
            }
          });
      expect(!meeting.isEmpty(), "no value of " + kind + " meets " + x);
      build(Config.plain(kind, meeting.get(choice % meeting.size()), choice / 7));
    }

    static Map<String, Long> nodesOf(Kind kind, long[] values) {
      Map<String, Long> m = new LinkedHashMap<>();
      for (int i = 0; i < values.length; i++) {
        m.put(kind.nodeFields.get(i).name(), values[i]);
      }
      return m;
    }

    private static void forEachValue(Kind kind, java.util.function.Consumer<long[]> each) {
      List<Layout.Field> fs = kind.nodeFields;
      long[] v = new long[fs.size()];
      forEachValue(fs, 0, v, each);
    }

    private static void forEachValue(
        List<Layout.Field> fs, int i, long[] v, java.util.function.Consumer<long[]> each) {
      if (i == fs.size()) {
        each.accept(v);
        return;
      }
      for (long x = 0; x <= fs.get(i).max(); x++) {
        v[i] = x;
        forEachValue(fs, i + 1, v, each);
      }
    }

    /**
     * Builds the recipe of `slot` again while it lives (a cell or a reload run twice): the same
     * layout and node values take the value over, the live one closed; a pool recipe takes another
     * value.
     */
    void again(int slot) {
      tally("again");
      Gen x = pick(slot);
      build(x.config);
      expect(
          x.config.pool() || !live.contains(x) || maybeHeld(x.bits),
          x + " still live after its recipe was built again");
    }

    /** Closes `slot`, then builds its recipe again: the value is free, so it starts. */
    void takeOver(int slot) {
      tally("takeOver");
      Gen x = pick(slot);
      close(x);
      int before = live.size();
      int foreign = FOREIGN.size();
      boolean maybe = maybeHeld(x.bits);
      build(x.config);
      expect(
          live.size() == before + 1 || FOREIGN.size() > foreign || maybe,
          x + " closed, yet its recipe did not start again");
    }

    /**
     * The case a successor's first ID at a caller's time once broke: a holder issues from the
     * clock, closes, and a generator of its value starts whose first call is nextIdAt or nextIdsAt
     * at or behind the clock (`offsetUs`); then it issues from the clock. That timeline starts from
     * nothing, but the clock's IDs go on after what the holder handed over: the invariant finds any
     * of them the holder issued. The holders ({@link Successor}) are those whose IDs the
     * successor's clock would meet: the 1 s tick the clock is still in, ticks borrowed ahead of it.
     */
    void successor(Successor kind, int choice, long offsetUs, int n) {
      tally("successor");
      if (successorDue()) {
        tally("successor: forced");
      }
      forced = null;
      if (kind == Successor.LIVE && live.isEmpty()) {
        kind = Successor.ONE_SECOND_TICKS;
      }
      tally("successor of " + kind);
      Gen holder;
      int batch;
      if (kind == Successor.LIVE) {
        holder = pick(choice);
        batch = 50;
      } else {
        Config c;
        if (kind == Successor.ONE_SECOND_TICKS) {
          c = Config.plain(Kind.SECONDS, Kind.SECONDS.values[choice % 2], choice / 2);
          batch = choice % 3 == 0 ? 2000 : 50;
        } else {
          // 4096 IDs a tick: 100,000 borrow about 24 ticks ahead of the clock.
          c =
              new Config(
                  Kind.FLAT,
                  Kind.FLAT.values[choice % 4],
                  "borrow",
                  null,
                  null,
                  null,
                  null,
                  null,
                  null,
                  null,
                  choice / 4);
          batch = 100_000;
        }
        // Its value free: the live generators that meet it closed first, and room for one more.
        Bits bits = c.kind().bits(nodesOf(c.kind(), c.values()));
        for (Gen o : holders(bits)) {
          close(o);
        }
        if (!roomForMore()) {
          close(pick(choice));
        }
        int before = live.size();
        build(c);
        if (live.size() == before) {
          note("successor: its holder did not start (see the build above)");
          return;
        }
        holder = live.get(live.size() - 1);
      }
      nextIds(holder, batch, 1);
      close(holder);
      Config next =
          holder.config.pool()
              ? Config.plain(holder.config.kind(), valuesOf(holder), choice)
              : holder.config;
      int before = live.size();
      int foreign = FOREIGN.size();
      boolean maybe = maybeHeld(holder.bits);
      build(next);
      if (live.size() == before) {
        expect(
            FOREIGN.size() > foreign || maybe,
            holder + " closed, yet a generator of its value did not start");
        return;
      }
      Gen x = live.get(live.size() - 1);
      expect(x.g.stats().idsIssued() == 0, x + ": issued before its first call");
      int first = nextIdAt(x, offsetUs, n);
      if (first == 0) {
        note("  (no ID at the caller's time: its first call issued none)");
      }
      nextIds(x, batch == 100_000 ? 2000 : 50, 1);
      nextId(x);
      if (first > 0 && pending.stream().anyMatch(i -> i.gen() == x && i.clock() && i.count() > 0)) {
        tally("successor: clock IDs after a first ID at a caller's time");
      }
    }

    // ---- issuing ----

    /** Clock bumps and node switches so far; refreshes a switching generator's node values. */
    long changes(Gen x) {
      Stats s = x.g.stats();
      if (!s.nodes().equals(x.nodes)) {
        expect(
            x.rollback.equals("switch"),
            x + ": node values changed to " + s.nodes() + " without rollback=switch");
        Bits now = x.config.kind().bits(s.nodes());
        for (Gen o : live) {
          expect(o == x || !o.bits.meets(now), x + " switched to " + s.nodes() + ", held by " + o);
        }
        x.leaving.add(x.bits);
        x.nodes = s.nodes();
        x.bits = now;
        x.everHeld.add(x.nodes);
        EVER.add(now);
        note("  " + x.name + " switched to " + x.nodes);
        tally("switch");
      }
      return s.clockBumps() + s.nodeSwitches();
    }

    static final Pattern LAST_ID_AT = Pattern.compile("last ID at ([^ )]+)\\)");

    /**
     * A clock call that failed with the clock behind the generator's last ID (its rollback
     * strategy's answer): only where an ID is ahead of the clock — issued at a caller's time,
     * borrowed, or handed over by an earlier holder of the value — and the error names a tick that
     * was issued.
     */
    void behind(Gen x, long nowBeforeUs, ClockMovedBackwardsException e, String call) {
      long latestMs = Math.max(x.tickMs, x.handedTickMs);
      expect(
          latestMs != Long.MIN_VALUE && nowBeforeUs < latestMs * 1000,
          x
              + " "
              + call
              + ": "
              + e.getMessage()
              + " — though no ID it knows of is ahead of the"
              + " clock (latest tick "
              + latestMs
              + " ms, clock "
              + nowBeforeUs
              + " µs)");
      Matcher m = LAST_ID_AT.matcher(e.getMessage());
      if (m.find()) {
        long namedMs = java.time.Instant.parse(m.group(1)).toEpochMilli();
        expect(
            namedMs <= latestMs,
            x
                + " "
                + call
                + ": "
                + e.getMessage()
                + " — no ID of that tick was issued (latest "
                + latestMs
                + " ms)");
      }
      note("  " + call + " -> ClockMovedBackwards: " + e.getMessage());
      tally("clock behind an ID issued ahead: ClockMovedBackwards");
    }

    void nextId(int slot) {
      tally("nextId");
      nextId(pick(slot));
    }

    void nextId(Gen x) {
      long now = x.g.nowUs();
      try {
        long id = x.g.nextId();
        x.issued++;
        x.issuedAt(id, true);
        pending.add(new Issue(x, new long[] {id}, 0, 1, true, changes(x)));
        note(x.name + ".nextId -> " + id);
      } catch (ClockMovedBackwardsException e) {
        behind(x, now, e, "nextId");
        changes(x);
      }
    }

    void nextIds(int slot, int n, int form) {
      tally("nextIds");
      nextIds(pick(slot), n, form);
    }

    void nextIds(Gen x, int n, int form) {
      if (form == 0 && x.callerTimed) {
        form = 1; // nextIds(n) loses the IDs written before an error: only where none can be
      }
      long now = x.g.nowUs();
      long[] dst = new long[n + (form == 2 ? 4 : 0)];
      int off = form == 2 ? 2 : 0;
      if (form == 2) {
        dst[0] = dst[1] = dst[n + 2] = dst[n + 3] = -7;
      }
      String call =
          x.name + ".nextIds(" + (form == 0 ? "n" : form == 1 ? "dst" : "dst,off,len") + ") n=" + n;
      ClockMovedBackwardsException behind = null;
      try {
        switch (form) {
          case 0 -> dst = x.g.nextIds(n);
          case 1 -> x.g.nextIds(dst);
          default -> x.g.nextIds(dst, off, n);
        }
      } catch (ClockMovedBackwardsException e) {
        behind = e;
      }
      int filled = 0;
      while (filled < n && dst[off + filled] > 0) {
        filled++;
      }
      for (int i = off + filled; i < off + n; i++) {
        expect(
            dst[i] == 0,
            call + ": wrote " + dst[i] + " at " + i + " past the " + filled + " issued");
      }
      if (form == 2) {
        expect(
            dst[0] == -7 && dst[1] == -7 && dst[n + 2] == -7 && dst[n + 3] == -7,
            call + ": wrote outside dst[2, 2 + n)");
      }
      x.issued += filled;
      if (filled > 0) {
        x.issuedAt(dst[off + filled - 1], true);
      }
      if (behind != null) {
        behind(x, now, behind, call);
      }
      pending.add(new Issue(x, dst, off, filled, true, changes(x)));
      note(call + " -> " + filled + " IDs" + (filled > 0 ? " from " + dst[off] : ""));
    }

    void nextIdAt(int slot, long offsetUs, int n) {
      tally("nextIdAt");
      nextIdAt(pick(slot), offsetUs, n);
    }

    /** Returns how many IDs it issued. */
    int nextIdAt(Gen x, long offsetUs, int n) {
      long at = x.g.nowUs() + offsetUs;
      String call =
          x.name
              + (n == 1 ? ".nextIdAt" : ".nextIdsAt n=" + n)
              + " clock"
              + (offsetUs < 0 ? "" : "+")
              + offsetUs
              + "us";
      long[] ids;
      int filled;
      if (n == 1) {
        try {
          Generator.Next r = x.g.nextIdAt(at);
          expect(r.isWait() == (r.id() < 0), call + ": " + r);
          expect(r.isWait() ? r.waitUs() > 0 : r.waitUs() == 0, call + ": " + r);
          ids = new long[] {r.id()};
          filled = r.isWait() ? 0 : 1;
          note(call + " -> " + r);
        } catch (ClockMovedBackwardsException e) {
          ids = new long[0];
          filled = 0;
          note(call + " -> ClockMovedBackwards");
        }
      } else {
        ids = new long[n + 2];
        ids[n] = ids[n + 1] = -7;
        Generator.Batch b = x.g.nextIdsAt(at, ids, 0, n);
        filled = b.filled();
        expect(filled >= 0 && filled <= n, call + ": " + b);
        expect(
            b.error() == null || b.error() instanceof ClockMovedBackwardsException,
            call + ": " + b);
        expect(ids[n] == -7 && ids[n + 1] == -7, call + ": wrote past len");
        for (int i = 0; i < n; i++) {
          expect((ids[i] > 0) == (i < filled), call + ": " + b + " " + Arrays.toString(ids));
        }
        note(call + " -> " + b);
      }
      if (filled > 0) {
        x.callerTimed = true;
        x.issued += filled;
        for (int i = 0; i < filled; i++) {
          x.issuedAt(ids[i], false);
        }
        pending.add(new Issue(x, ids, 0, filled, false, changes(x)));
      } else {
        changes(x);
      }
      return filled;
    }

    void stats(int slot) {
      tally("stats");
      Gen x = pick(slot);
      Stats s = x.g.stats();
      expect(s.asMap().keySet().equals(STATS_KEYS), x + ": stats keys " + s.asMap().keySet());
      expect(s.idsIssued() == x.issued, x + ": ids_issued " + s.idsIssued() + ", not " + x.issued);
      expect(s.nodes().equals(x.nodes), x + ": stats nodes " + s.nodes());
      expect(s.rollback().equals(x.rollback), x + ": rollback " + s.rollback());
      boolean linux = System.getProperty("os.name").startsWith("Linux");
      expect(
          s.guard().startsWith(linux ? "held: @snowflake-c/claim/" : "held: "),
          x + ": guard " + s.guard());
      expect(
          x.config.kind().hasClock() ? s.clock() <= 3 : s.clock() == 0, x + ": clock " + s.clock());
      note(x.name + ".stats -> " + s);
    }

    /** The stats' keys: the shared vectors' table of them (contract.json), the core's rows. */
    static final Set<String> STATS_KEYS = statsKeys();

    static Set<String> statsKeys() {
      try {
        for (JsonNode c :
            VectorTest.JSON.readTree(VectorTest.vectorDir().resolve("contract.json").toFile())) {
          if (c.path("table").asText().equals("stats")) {
            Set<String> keys = new HashSet<>();
            c.get("names").forEach(name -> keys.add(name.asText()));
            return Set.copyOf(keys);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      throw new AssertionError("contract.json has no table of the stats");
    }

    void decode(int slot, int choice) {
      tally("decode");
      Gen x = pick(slot);
      int have = Math.min(x.recentCount, x.recent.length);
      if (have == 0) {
        note(x.name + ".decode: nothing issued yet");
        return;
      }
      long id = x.recent[choice % have];
      Parts p = Snowflake.decode(id, x.layout);
      expect(p.id() == id, "decode " + id + ": id " + p.id());
      Map<String, Long> nodes = new TreeMap<>();
      for (Layout.Field f : x.config.kind().nodeFields) {
        nodes.put(f.name(), p.get(f.name()));
      }
      expect(
          x.everHeld.stream().anyMatch(m -> new TreeMap<>(m).equals(nodes)),
          "decode " + id + " of " + x + ": nodes " + nodes);
      expect(
          Snowflake.encode(x.layout, p.timeMs(), p.fields()) == id,
          "decode " + id + ": encoded again " + Snowflake.encode(x.layout, p.timeMs(), p.fields()));
      expect(p.toJson().startsWith("{\"id\":\"" + id + "\","), "decode " + id + ": " + p.toJson());
      String text = Snowflake.format(id, "base62");
      expect(Snowflake.decode(text, "base62", x.layout).equals(p), "decode " + text);
      note(x.name + ".decode " + id + " -> " + p.toJson());
    }

    // ---- closing ----

    void close(int slot) {
      tally("close");
      close(pick(slot));
    }

    void close(Gen x) {
      x.g.close();
      expect(x.g.isClosed(), x + ": isClosed() false after close()");
      closedNow(x);
      note(x.name + ".close");
    }

    /** x, taken over by the same generator made again: its calls say so; then closed. */
    void takenOver(Gen x) {
      tally("build took the same generator over");
      String node =
          x.nodes.entrySet().stream()
              .map(n -> n.getKey() + "=" + n.getValue())
              .collect(java.util.stream.Collectors.joining(","));
      expect(x.g.isClosed(), x + ": isClosed() false once taken over");
      try {
        long id = x.g.nextId();
        throw failure(x + ": issued " + id + " once taken over");
      } catch (InvalidArgumentException e) {
        expect(
            ("the generator is closed: a newer generator of this process took node value "
                    + node
                    + " (a cell or a reload run again); use that one")
                .equals(e.getMessage()),
            x + " (taken over).nextId(): " + e.getMessage());
      }
      close(x);
    }

    private void closedNow(Gen x) {
      x.handOver();
      live.remove(x);
      closed.add(x);
      if (closed.size() > MAX_CLOSED) {
        closed.remove(0);
      }
    }

    /**
     * Makes a waitable generator wait an hour — an ID at a caller's time that far ahead, then a
     * live call on another thread — and closes it from this thread: the call ends with the closed
     * error (it could issue nothing before the hour is over).
     */
    void closeWhileWaiting(int slot, int call) {
      tally("closeWhileWaiting");
      List<Gen> waitable = live.stream().filter(Gen::waitable).toList();
      Gen x = waitable.get(slot % waitable.size());
      Generator g = x.g;
      Generator.Next ahead = g.nextIdAt(g.nowUs() + FAR_AHEAD_US);
      expect(!ahead.isWait(), x + ": nextIdAt an hour ahead: " + ahead);
      x.issued++;
      x.issuedAt(ahead.id(), false);
      x.callerTimed = true;
      AtomicReference<Object> outcome = new AtomicReference<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  switch (call) {
                    case 0 -> outcome.set(g.nextId());
                    case 1 -> outcome.set(g.nextIds(5));
                    default -> {
                      long[] dst = new long[3];
                      g.nextIds(dst);
                      outcome.set(dst);
                    }
                  }
                } catch (RuntimeException | Error e) {
                  outcome.set(e);
                }
              },
              "closeWhileWaiting");
      t.setDaemon(true);
      t.start();
      // Waiting: parked between its calls into the core (or already ended, which the outcome
      // tells). No verdict rests on when.
      while (t.isAlive() && t.getState() != Thread.State.TIMED_WAITING) {
        Thread.onSpinWait();
      }
      tally("closeWhileWaiting: closed while the call " + (t.isAlive() ? "waited" : "had ended"));
      close(x);
      join(t);
      expect(!t.isAlive(), x + ": a call waiting on it did not end once it was closed");
      Object o = outcome.get();
      expect(
          o instanceof InvalidArgumentException e && CLOSED.equals(e.getMessage()),
          x + ": a call waiting on it ended with " + describe(o) + ", not the closed error");
    }

    /**
     * Closes a generator while another thread issues from it: every ID that thread got is a
     * generator's ID (unique, increasing, handed over to the value's next holder), and its next
     * call answers the closed error.
     */
    void closeWhileIssuing(int slot, int call) {
      tally("closeWhileIssuing");
      Gen x = pick(slot);
      Generator g = x.g;
      long now = g.nowUs();
      long[] got = new long[1 << 16];
      AtomicLong count = new AtomicLong();
      AtomicReference<Throwable> end = new AtomicReference<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  long[] batch = new long[16];
                  for (int i = 0; i + 16 <= got.length; ) {
                    if (call == 0) {
                      got[i++] = g.nextId();
                    } else {
                      Arrays.fill(batch, 0);
                      try {
                        g.nextIds(batch);
                      } finally {
                        for (long id : batch) {
                          if (id > 0) {
                            got[i++] = id;
                          }
                        }
                      }
                    }
                    count.set(i);
                  }
                } catch (RuntimeException | Error e) {
                  end.set(e);
                }
              },
              "closeWhileIssuing");
      t.setDaemon(true);
      t.start();
      while (t.isAlive() && count.get() == 0) {
        Thread.onSpinWait();
      }
      long changes = changes(x);
      x.g.close();
      join(t);
      expect(!t.isAlive(), x + ": a call running on it did not end once it was closed");
      Throwable e = end.get();
      int n = 0;
      while (n < got.length && got[n] > 0) {
        n++;
      }
      x.issued += n;
      if (n > 0) {
        x.issuedAt(got[n - 1], true);
      }
      pending.add(new Issue(x, got, 0, n, true, changes));
      closedNow(x);
      note(x.name + " closed while issuing: " + n + " IDs, then " + describe(e));
      if (e instanceof ClockMovedBackwardsException c) {
        behind(x, now, c, "closeWhileIssuing");
        return;
      }
      if (e == null) {
        note("  (its buffer filled before the close)");
        return;
      }
      expect(
          e instanceof InvalidArgumentException && CLOSED.equals(e.getMessage()),
          x + ": a call racing close() ended with " + describe(e) + ", not the closed error");
      tally("closeWhileIssuing: IDs before the close");
    }

    /** Waits for `t` to end, HANG_MS at most (a hang guard: it ends at once, or never). */
    static void join(Thread t) {
      try {
        t.join(HANG_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }

    static void sleep(long ms) {
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }

    static String describe(Object o) {
      if (o instanceof Throwable e) {
        return e.getClass().getSimpleName() + ": " + e.getMessage();
      }
      if (o instanceof long[] a) {
        return Arrays.toString(a);
      }
      return String.valueOf(o);
    }

    /**
     * Drops a live generator without closing it: once the garbage collector finds it unreachable,
     * its Cleaner frees it, which gives its value back. A generator of that value then starts.
     */
    void drop(int slot) {
      tally("drop");
      Gen x = pick(slot);
      live.remove(x);
      x.handOver();
      WeakReference<Generator> ref = new WeakReference<>(x.g);
      x.g = null;
      collected(ref, x);
      Config probe = Config.plain(x.config.kind(), valuesOf(x), 0);
      long deadline = System.nanoTime() + HANG_MS * 1_000_000;
      for (int tries = 1; ; tries++) {
        int before = live.size();
        try {
          Generator g = probe.builder(stateRoot).build();
          Gen p = new Gen("g" + made++, probe, g);
          live.add(p);
          note(x.name + " dropped; the Cleaner gave " + x.nodes + " back: " + p.name + " took it");
          tally("drop: value back");
          return;
        } catch (WorkerUnavailableException e) {
          expect(namesThisProcess(e.getMessage()), "after dropping " + x + ": " + e.getMessage());
          expect(
              System.nanoTime() < deadline,
              x + " dropped and collected, yet its value was not given back");
          expect(live.size() == before, "probe");
          sleep(2);
        }
      }
    }

    static long[] valuesOf(Gen x) {
      return x.config.kind().nodeFields.stream().mapToLong(f -> x.nodes.get(f.name())).toArray();
    }

    /** Collects until `ref` is cleared: nothing of the test keeps the generator. */
    void collected(WeakReference<Generator> ref, Gen x) {
      long deadline = System.nanoTime() + HANG_MS * 1_000_000;
      while (ref.get() != null) {
        expect(System.nanoTime() < deadline, x + " stayed reachable: the test keeps it");
        System.gc();
        sleep(5);
      }
    }

    /** Drops a closed generator: the Cleaner frees its memory, and nothing else happens. */
    void dropClosed(int slot) {
      tally("dropClosed");
      Gen x = closed.remove(slot % closed.size());
      WeakReference<Generator> ref = new WeakReference<>(x.g);
      x.g = null;
      collected(ref, x);
      note(x.name + " (closed) dropped and collected");
    }

    /** A call on a closed generator: the closed error, the core's words (close() does nothing). */
    void callClosed(int slot, int kind) {
      tally("callClosed");
      Gen x = closed.get(slot % closed.size());
      Generator g = x.g;
      String call = x.name + " (closed)." + ClosedCall.name(kind);
      expect(g.isClosed(), call + ": isClosed() false");
      expect(g.toString().endsWith(", closed]"), call + ": " + g);
      long[] dst = new long[4];
      Object result;
      try {
        result =
            switch (kind) {
              case 0 -> g.nextId();
              case 1 -> g.nextIds(3);
              case 2 -> {
                g.nextIds(dst);
                yield dst;
              }
              case 3 -> {
                g.nextIds(dst, 1, 2);
                yield dst;
              }
              case 4 -> g.nextIdAt(System.currentTimeMillis() * 1000);
              case 5 -> {
                Generator.Batch b = g.nextIdsAt(System.currentTimeMillis() * 1000, dst, 0, 4);
                expect(b.filled() == 0, call + ": " + b);
                if (b.error() != null) {
                  throw b.error();
                }
                yield b;
              }
              case 6 -> g.stats();
              case 7 -> g.nowUs();
              case 8 -> g.layout();
              case 9 -> g.asLongSupplier().getAsLong();
              default -> {
                g.close();
                yield "closed again";
              }
            };
      } catch (InvalidArgumentException e) {
        expect(CLOSED.equals(e.getMessage()), call + ": " + e.getMessage());
        expect(e.statusName().equals("InvalidArgument") && e.status() == 2, call + ": status");
        expect(Arrays.stream(dst).allMatch(v -> v == 0), call + ": wrote " + Arrays.toString(dst));
        note(call + " -> the closed error");
        return;
      } catch (RuntimeException e) {
        throw failure(call + ": " + describe(e) + ", not the closed error");
      }
      expect(kind == ClosedCall.COUNT - 1, call + ": returned " + describe(result));
      expect(g.isClosed(), call + ": isClosed() false after a second close()");
      note(call + " -> nothing, as a second close() should");
    }

    // ---- the invariant ----

    /** After every action. */
    void check() {
      for (Issue i : pending) {
        checkIssue(i);
      }
      pending.clear();
      Set<String> claims = new HashSet<>();
      for (Gen x : live) {
        expect(!x.g.isClosed(), x + ": closed, though the model has it open");
        Stats s = x.g.stats();
        expect(
            s.idsIssued() == x.issued,
            x + ": stats().idsIssued() " + s.idsIssued() + ", but it issued " + x.issued);
        expect(s.nodes().equals(x.nodes), x + ": stats().nodes() " + s.nodes());
        expect(s.guard().startsWith("held: "), x + ": guard " + s.guard());
        expect(claims.add(s.guard()), x + ": the claim of another live generator: " + s.guard());
        for (Gen o : live) {
          expect(o == x || !o.bits.meets(x.bits), x + " and " + o + " both live");
        }
      }
      for (Gen x : closed) {
        expect(x.g.isClosed(), x + ": isClosed() false");
        try {
          long id = x.g.nextId();
          throw failure(x + " (closed).nextId() issued " + id);
        } catch (InvalidArgumentException e) {
          expect(CLOSED.equals(e.getMessage()), x + " (closed).nextId(): " + e.getMessage());
        }
      }
    }

    private void checkIssue(Issue i) {
      Gen x = i.gen();
      List<Layout.Field> fields = x.config.kind().nodeFields;
      for (int k = i.from(); k < i.from() + i.count(); k++) {
        long id = i.ids()[k];
        expect(id > 0, x + ": issued " + id);
        Parts p = Snowflake.decode(id, x.layout);
        Map<String, Long> nodes = new LinkedHashMap<>();
        for (Layout.Field f : fields) {
          nodes.put(f.name(), p.get(f.name()));
        }
        expect(
            x.everHeld.contains(nodes),
            x + ": ID " + id + " decodes to " + nodes + " (" + p.toJson() + ")");
        if (i.clock()) {
          if (!ISSUED.add(id)) {
            throw failure(
                "ID "
                    + id
                    + " issued twice: again by "
                    + x
                    + " ("
                    + p.toJson()
                    + "), once by a generator of this run before");
          }
          if (i.changes() <= x.lastChanges) {
            expect(
                id > x.lastClockId,
                x
                    + ": ID "
                    + id
                    + " after "
                    + x.lastClockId
                    + ", not greater (no clock bump, no switch)");
          }
          x.lastClockId = id;
          x.lastChanges = Math.max(x.lastChanges, i.changes());
          tally("IDs issued by the clock");
        } else {
          tally("IDs issued at a caller's time");
        }
        if (k == i.from() || k == i.from() + i.count() - 1) {
          x.remember(id);
        }
      }
    }
  }

  /**
   * The property's size from the environment, a folder for the state directories, and a summary of
   * what ran. A check that another program of the host kept from being made (a value it holds)
   * turns a passing run into a skip, which run-tests.sh records.
   */
  static final class Budget implements AroundPropertyHook {
    @Override
    public PropertyExecutionResult aroundProperty(
        PropertyLifecycleContext context, PropertyExecutor property) throws IOException {
      context.attributes().setTries(TRIES);
      String seed = System.getenv("SNOWFLAKEC_STATE_SEED");
      if (seed != null && !seed.isBlank()) {
        context.attributes().setSeed(seed.trim());
      }
      Run.stateRoot = Files.createTempDirectory("snowflake-c-state-machine");
      long started = System.nanoTime();
      PropertyExecutionResult result;
      try {
        result = property.execute();
      } finally {
        Run.end();
        try (Stream<Path> files = Files.walk(Run.stateRoot)) {
          for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        } catch (IOException e) {
          System.out.println("StateMachineTest: " + Run.stateRoot + " left behind: " + e);
        }
      }
      System.out.printf(
          "StateMachineTest: %s, %d tries of up to %d actions, %d IDs by the clock, %.1f s (%s)%n",
          result.status(),
          result.countTries(),
          ACTIONS,
          Run.ISSUED.size(),
          (System.nanoTime() - started) / 1e9,
          result.seed().map(s -> "seed " + s).orElse("no seed"));
      new TreeMap<>(Run.TALLY).forEach((k, v) -> System.out.printf("  %s: %d%n", k, v.get()));
      if (result.status() == PropertyExecutionResult.Status.SUCCESSFUL && !Run.FOREIGN.isEmpty()) {
        return result.mapToAborted(
            new TestAbortedException(
                "values held by another program of the host kept "
                    + Run.FOREIGN.size()
                    + " builds from being checked, e.g. "
                    + Run.FOREIGN.get(0)));
      }
      return result;
    }
  }
}
