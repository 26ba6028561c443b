/* A real wall-clock step backwards while generating, made by libfaketime.
 *
 * Run under LD_PRELOAD=libfaketimeMT.so.1 (the thread-safe build: the
 * single-threaded libfaketime.so.1 can lose its offset for a moment when two
 * threads read the clock at once) with FAKETIME_TIMESTAMP_FILE (holding the
 * starting offset, e.g. "+2"), FAKETIME_NO_CACHE=1 and
 * FAKETIME_DONT_FAKE_MONOTONIC=1. The driver generates for a while, writes
 * "+0" to the timestamp file — the wall clock steps back by the offset —
 * and goes on generating, then checks the strategy's expected behaviour:
 *
 *   refuse  ClockMovedBackwards, saying by how much; nothing after it
 *   wait    no error, the rollback waited out, IDs strictly increasing
 *   bump    no error, the clock field bumped
 *   borrow  no error, IDs issued ahead of the clock (ticks borrowed),
 *           IDs strictly increasing
 *   switch  no error, another value of the pool taken (rollback=switch:
 *           worker=auto in the state folder STEPGEN_STATE_DIR), the IDs
 *           after the step under it
 *
 * and that the only steps back of the wall clock were the ones it made: the
 * generating thread watches the wall clock against the monotonic clock
 * (which libfaketime leaves alone) and must see exactly as many steps back
 * as it injected, and the generator must count exactly one rollback (none
 * for a step that borrowing absorbs). Prints "STEPS seen=N injected=N
 * generator=N" before the RESULT line.
 *
 * Usage: stepgen PRESET ROLLBACK MAX_WAIT_MS MAX_DRIFT_MS STEP_MS EXPECT
 * (MAX_WAIT_MS / MAX_DRIFT_MS: -1 for the strategy's default). */
#include "common.h"

#include <fcntl.h>
#include <unistd.h>

static int offset_fd = -1;

/* Steps back of the wall clock seen from the generating thread: the wall
 * clock's offset from the monotonic clock, read again and again; a drop of
 * more than half a millisecond (the shortest step made is 1 ms) between two
 * readings is a step. A reading interrupted for more than 50 us is made
 * again, its offset being uncertain by that much; the slewing NTP may do
 * changes the offset by well under 0.5 ms between two readings. */
static struct {
  int64_t last; /* wall - monotonic at the last reading, us */
  bool have;
  unsigned back;
} watch;

static void watch_clock(void) {
  int64_t m0, w, m1;
  int tries = 0;
  do {
    m0 = mono_us(), w = wall_us(), m1 = mono_us();
  } while (m1 - m0 > 50 && ++tries < 20);
  if (m1 - m0 > 50) return;
  const int64_t d = w - m0 - (m1 - m0) / 2;
  if (watch.have && d < watch.last - 500) {
    watch.back++;
    fprintf(stderr, "stepgen: the wall clock stepped back %.3f ms\n",
            (double)(watch.last - d) / 1000.0);
  }
  watch.last = d;
  watch.have = true;
}

/* The generator's clock less the monotonic clock, read between two
 * monotonic readings at most 50 us apart (a preemption between two plain
 * readings once put 0.124 ms into a 1 ms step). */
static int64_t offset_us(const sfc_generator *g) {
  int64_t m0, now, m1;
  int tries = 0;
  do {
    m0 = mono_us(), now = sfc_generator_now_us(g), m1 = mono_us();
  } while (m1 - m0 > 50 && ++tries < 20);
  return now - m0 - (m1 - m0) / 2;
}

/* STEPGEN_TIME_SOURCE=counter: the generator's time source, and single
 * calls (sfc_next, the path the counter serves) instead of batches. */
static bool counter;

static sfc_status next_one(sfc_generator *g, uint64_t *id, sfc_error *err) {
  return counter ? sfc_next(g, id, err) : sfc_next_ids(g, id, 1, NULL, err);
}

/* Generates at a bounded rate (batches of 16, a short pause between) for
 * `us` microseconds of monotonic time, or until an error. */
static sfc_status run(sfc_generator *g, int64_t us, ids *out, sfc_error *err) {
  const int64_t end = mono_us() + us;
  uint64_t batch[16];
  while (mono_us() < end) {
    size_t got = 0;
    sfc_status st = SFC_OK;
    if (counter)
      while (got < 16 && (st = sfc_next(g, &batch[got], err)) == SFC_OK)
        got++;
    else
      st = sfc_next_ids(g, batch, 16, &got, err);
    ids_append(out, batch, got);
    watch_clock();
    if (st != SFC_OK) return st;
    sfc_pause(20);
  }
  return SFC_OK;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: stepgen PRESET ROLLBACK MAX_WAIT MAX_DRIFT STEP_MS "
                    "refuse|wait|bump|borrow|switch\n(durations in ms, or "
                    "'default' for the strategy's)\n");
    return 2;
  }
  const char *file = getenv("FAKETIME_TIMESTAMP_FILE");
  if (!file || !getenv("LD_PRELOAD")) {
    fprintf(stderr, "stepgen: run under libfaketime with "
                    "FAKETIME_TIMESTAMP_FILE\n");
    return 2;
  }
  const char *expect = argv[6];
  const double step_ms = atof(argv[5]);
  sfc_layout layout;
  sfc_error err;
  row_layout(argv[1], &layout);
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_node_value node[] = {{"worker", 7, SFC_SOURCE_EXPLICIT},
                           {"datacenter", 1, SFC_SOURCE_EXPLICIT}};
  sfc_options_set_nodes(
      &opts, node, sfc_layout_field_index(&layout, "datacenter") >= 0 ? 2 : 1);
  sfc_value rollback = {SFC_TYPE_TEXT, 0, 0, 0, argv[2], strlen(argv[2]), 0};
  must(sfc_options_set(&opts, "rollback", 8, &rollback, &err), &err,
       "rollback");
  if (strcmp(argv[2], "switch") == 0) {
    /* A pool generator: another value is taken at the step. */
    node[0].value = 0;
    node[0].source = SFC_SOURCE_POOL;
    set_text(&opts, SFC_OPTION_STATE_DIR, getenv("STEPGEN_STATE_DIR"));
    if (!get_text(&opts, SFC_OPTION_STATE_DIR)) {
      fprintf(stderr, "stepgen: rollback=switch needs STEPGEN_STATE_DIR\n");
      return 2;
    }
  }
  const char *source = getenv("STEPGEN_TIME_SOURCE");
  if (source) {
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, source, strlen(source), 0};
    must(sfc_options_set(&opts, "time_source", 11, &v, &err), &err,
         "time_source");
    counter = !strcmp(source, "counter");
  }
  /* By name, as every binding sets them; "default" leaves one unset. */
  for (int i = 3; i <= 4; i++) {
    const char *name = i == 3 ? "max_wait" : "max_drift";
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, argv[i], strlen(argv[i]), 0};
    if (strcmp(argv[i], "default") != 0)
      must(sfc_options_set(&opts, name, strlen(name), &v, &err), &err, name);
  }
  sfc_generator *g;
  must(sfc_generator_new(&layout, &opts, &g, &err), &err, "generator");

  /* The starting offset, to step forward again before a retry. */
  char text[64] = "";
  FILE *f = fopen(file, "r");
  if (!f || !fgets(text, sizeof text, f)) {
    perror(file);
    return 2;
  }
  fclose(f);
  const double offset = atof(text);
  offset_fd = faketime_open(file);
  faketime_set(offset_fd, offset);

  result r = {.ok = true};
  ids out = {0};
  sfc_status st = run(g, 150000, &out, &err);
  if (st != SFC_OK) {
    result_fail(&r, "before the step: %s: %s", sfc_status_name(st),
                err.message);
  }
  size_t before = out.n;
  sfc_stats s_before;
  sfc_generator_stats(g, &s_before);
  double seen_ms = 0;
  bool ahead = false; /* an ID issued ahead of the clock after the step */
  bool seen = false;
  /* A step shorter than the time between the last ID and the next clock
   * reading is not a rollback at all, so the step is made right after an ID
   * issued at the start of a tick; if it still went unseen (the process was
   * preempted), the clock is set ahead again and the step repeated. */
  for (int attempt = 0; attempt < 30 && st == SFC_OK && !seen; attempt++) {
    sfc_stats s0;
    sfc_generator_stats(g, &s0);
    if (attempt > 0) {
      faketime_set(offset_fd, offset);
      st = run(g, 20000, &out, &err);
      if (st != SFC_OK) break;
    }
    const int64_t d0 = offset_us(g);
    while ((sfc_generator_now_us(g) - layout.epoch_ms * 1000) % layout.unit_us >
           150)
      ;
    uint64_t id;
    st = next_one(g, &id, &err);
    if (st != SFC_OK) break;
    ids_push(&out, id);
    const int64_t last_tick = (int64_t)(id >> layout.fields[0].shift);
    watch_clock();
    faketime_set(offset_fd, 0);
    const int64_t stepped_at = mono_us();
    r.faults++;
    /* The first ID after the step, against the clock right after it. The
     * counter may see the step up to one tick late: until then its IDs
     * keep the last tick, never a later one. */
    sfc_stats s1;
    for (;;) {
      const int64_t call_at = mono_us();
      st = next_one(g, &id, &err);
      watch_clock();
      sfc_generator_stats(g, &s1);
      seen = st != SFC_OK || sfc_stats_uint(&s1, SFC_STAT_ROLLBACKS) >
                                 sfc_stats_uint(&s0, SFC_STAT_ROLLBACKS);
      if (st == SFC_OK) {
        int64_t now_tick =
            (sfc_generator_now_us(g) - layout.epoch_ms * 1000) / layout.unit_us;
        ids_push(&out, id);
        sfc_parts p;
        sfc_decode(&layout, id, &p, NULL);
        if ((int64_t)p.values[0] > now_tick) ahead = true;
        if (counter && !seen && (int64_t)p.values[0] > last_tick)
          result_fail(&r,
                      "before the step was seen, an ID %lld ticks past "
                      "the last",
                      (long long)((int64_t)p.values[0] - last_tick));
      }
      if (seen || !counter || !strcmp(expect, "borrow")) break;
      /* The last deadline was made before the step, and ends within the
       * tick it was made in: a call begun a tick after the step reads the
       * clock. */
      if (call_at - stepped_at > 1100) {
        result_fail(&r, "the step not seen by a call %lld us after it",
                    (long long)(call_at - stepped_at));
        break;
      }
    }
    seen = seen || ahead;
    if (seen && st == SFC_OK) st = run(g, 200000, &out, &err);
    seen_ms = (double)(d0 - offset_us(g)) / 1000.0;
    if (!seen) fprintf(stderr, "stepgen: the step was not seen; again\n");
  }
  /* The step as the generator's clock saw it, against the monotonic clock
   * (which libfaketime leaves alone). */
  if (seen_ms < step_ms * 0.98 - 0.1 || seen_ms > step_ms * 1.02 + 0.1)
    result_fail(&r, "the clock stepped %.3f ms, not %.3f ms", seen_ms, step_ms);
  sfc_stats s;
  sfc_generator_stats(g, &s);
  print_stats("stepgen", g);
  /* Exactly the steps injected, as the generating thread saw the wall clock
   * and as the generator counted them: one rollback for the step it saw,
   * none when borrowing absorbs the step (a 1 h step is refused even with
   * borrow, and expected as "refuse"). */
  printf("STEPS seen=%u injected=%" PRIu64 " generator=%" PRIu64 "\n",
         watch.back, r.faults, sfc_stats_uint(&s, SFC_STAT_ROLLBACKS));
  if (watch.back != r.faults)
    result_fail(
        &r, "the wall clock stepped back %u times, %" PRIu64 " steps injected",
        watch.back, r.faults);
  const uint64_t rollbacks = strcmp(expect, "borrow") != 0;
  if (sfc_stats_uint(&s, SFC_STAT_ROLLBACKS) != rollbacks)
    result_fail(&r, "the generator counted %" PRIu64 " rollbacks, not %" PRIu64,
                sfc_stats_uint(&s, SFC_STAT_ROLLBACKS), rollbacks);
  if (!strcmp(expect, "bump") && sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS) > 1)
    result_fail(&r, "the clock field bumped %" PRIu64 " times for one step",
                sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS));
  r.ids = out.n;
  r.dups = ids_dups(out.v, out.n);
  if (r.dups) result_fail(&r, "%" PRIu64 " duplicate IDs", r.dups);

  bool refused = st == SFC_CLOCK_MOVED_BACKWARDS;
  if (st != SFC_OK && !refused) {
    r.unexpected++;
    result_fail(&r, "%s: %s", sfc_status_name(st), err.message);
  }
  if (!strcmp(expect, "refuse")) {
    if (!refused) {
      result_fail(&r, "expected ClockMovedBackwards, got %s",
                  sfc_status_name(st));
    } else {
      r.expected++;
      if (!strstr(err.message, "moved backwards by"))
        result_fail(&r, "the message does not say by how much: %s",
                    err.message);
      if (sfc_stats_uint(&s, SFC_STAT_ROLLBACKS_REFUSED) < 1)
        result_fail(&r, "rollbacks_refused=0");
    }
  } else {
    if (refused) {
      r.unexpected++;
      result_fail(&r, "refused: %s", err.message);
    }
    if (out.n <= before) result_fail(&r, "no IDs after the step");
    if (!strcmp(expect, "wait")) {
      if (sfc_stats_uint(&s, SFC_STAT_ROLLBACKS_WAITED) < 1)
        result_fail(&r, "rollbacks_waited=0");
      if (sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS))
        result_fail(&r, "clock bumped while waiting");
      if (!ids_increasing(out.v, out.n)) result_fail(&r, "not increasing");
    } else if (!strcmp(expect, "bump")) {
      if (sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS) < 1)
        result_fail(&r, "clock_bumps=0");
    } else if (!strcmp(expect, "switch")) {
      if (sfc_stats_uint(&s, SFC_STAT_NODE_SWITCHES) < 1)
        result_fail(&r, "node_switches=0");
      if (sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS))
        result_fail(&r, "clock bumped instead of switching");
      if (stats_node(&s, 0) == stats_node(&s_before, 0))
        result_fail(&r, "still worker %" PRIu64 " after the step",
                    stats_node(&s, 0));
      sfc_parts last;
      sfc_decode(&layout, out.v[out.n - 1], &last, NULL);
      if (last.values[sfc_layout_field_index(&layout, "worker")] !=
          stats_node(&s, 0))
        result_fail(&r, "the last ID is not under the value switched to");
    } else if (!strcmp(expect, "borrow")) {
      /* Within the last tick issued for a short step; new ticks borrowed
       * once that tick's sequence runs out, which a long step makes sure
       * of (4096 IDs in 2 s), whatever the load. */
      if (!ahead) result_fail(&r, "no ID issued ahead of the clock");
      if (step_ms >= 1000 && sfc_stats_uint(&s, SFC_STAT_BORROWED_TICKS) < 1)
        result_fail(&r, "borrowed_ticks=0");
      if (sfc_stats_uint(&s, SFC_STAT_ROLLBACKS))
        result_fail(&r, "a rollback beyond max_drift counted");
      if (sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS))
        result_fail(&r, "clock bumped while borrowing");
      if (!ids_increasing(out.v, out.n)) result_fail(&r, "not increasing");
    } else {
      result_fail(&r, "unknown expectation %s", expect);
    }
  }
  if (r.ok) snprintf(r.note, sizeof r.note, "step %.3f ms seen", seen_ms);
  result_print(&r);
  sfc_generator_free(g);
  free(out.v);
  return r.ok ? 0 : 1;
}
