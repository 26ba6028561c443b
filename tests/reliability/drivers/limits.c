/* The generator's limits, driven through the deterministic entry
 * (sfc_next_at / sfc_next_ids_at) and, for the threads, the live one.
 *
 * Usage: limits time|seq|borrow|walk [STEPS [SEED]]
 *   time    the time field's end: TimeExhausted, never a wrap — after the
 *           last tick's sequence runs out, at any later clock reading, with
 *           borrowing allowed, and for a layout whose life is already over
 *   seq     the sequence exhausted every tick under 2 threads: they wait
 *           for the next tick, never run ahead of the clock, never repeat
 *   borrow  the borrow bound: exactly (max_drift + 1) ticks of IDs at one
 *           clock reading, then SFC_WAIT; a step back past the bound is
 *           refused (max_wait 0) or waited for; and the clock catching up
 *           resumes without a duplicate
 *   walk    a random walk of the clock through every strategy (below) */
#include "common.h"

#include <pthread.h>

static const int64_t NOW_MS = 1767225600000; /* 2026-01-01 */

static int random_start;

static sfc_generator *make(const char *spec, int64_t epoch_ms, sfc_rollback rb,
                           int64_t wait_ms, int64_t drift_ms,
                           sfc_layout *layout) {
  sfc_error err;
  must(sfc_layout_parse(spec, epoch_ms, layout, &err), &err, spec);
  sfc_node_value node[] = {{"worker", 3, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_rollback(&opts, rb);
  set_ms(&opts, SFC_OPTION_MAX_WAIT, wait_ms);
  set_ms(&opts, SFC_OPTION_MAX_DRIFT, drift_ms);
  set_bool(&opts, SFC_OPTION_RANDOM_START, random_start);
  sfc_generator *g;
  must(sfc_generator_new(layout, &opts, &g, &err), &err, "generator");
  return g;
}

static uint64_t tick_of(const sfc_layout *l, uint64_t id) {
  sfc_parts p;
  sfc_decode(l, id, &p, NULL);
  return p.values[0];
}

static void expect_status(result *r, sfc_status got, sfc_status want,
                          const sfc_error *err, const char *what) {
  if (got == want) {
    if (want != SFC_OK && want != SFC_WAIT) r->expected++;
    return;
  }
  if (got != SFC_OK && got != SFC_WAIT) r->unexpected++;
  result_fail(r, "%s: expected %s, got %s (%s)", what, sfc_status_name(want),
              sfc_status_name(got),
              got != SFC_OK && got != SFC_WAIT ? err->message : "");
}

static void time_limit(result *r) {
  sfc_layout l;
  sfc_error err;
  uint64_t id;
  int64_t wait = 0;
  /* 12 bits of 1 ms: 4096 ms of life from the epoch, long past. */
  const int64_t epoch = row_epoch_ms();
  const int64_t end_us = (epoch + 4096) * 1000;
  for (int rb = SFC_ROLLBACK_ERROR; rb <= SFC_ROLLBACK_BORROW; rb++) {
    if (rb == SFC_ROLLBACK_CLOCK) continue;
    ids all = {0}; /* per generator: they share a node value */
    sfc_generator *g =
        make("time:12@1ms,worker:4,seq:3", epoch, (sfc_rollback)rb, 0,
             rb == SFC_ROLLBACK_BORROW ? 50 : 0, &l);
    /* The last tick: its 8 IDs, then TimeExhausted (not a wait for a tick
     * that does not exist, not a borrowed tick past the end). */
    const int64_t last_us = end_us - 1000 + 400;
    for (int i = 0; i < 8; i++) {
      sfc_status st = sfc_next_at(g, last_us, &id, &wait, &err);
      expect_status(r, st, SFC_OK, &err, "an ID in the last tick");
      if (st == SFC_OK) {
        ids_push(&all, id);
        if (tick_of(&l, id) != 4095) result_fail(r, "ID outside the last tick");
      }
    }
    sfc_status st = sfc_next_at(g, last_us, &id, &wait, &err);
    expect_status(r, st, SFC_TIME_EXHAUSTED, &err,
                  "the 9th ID of the last tick");
    uint64_t batch[32];
    size_t filled = 99;
    st = sfc_next_ids_at(g, last_us + 100, batch, 32, &filled, &wait, &err);
    expect_status(r, st, SFC_TIME_EXHAUSTED, &err, "a batch after the end");
    if (filled != 0) result_fail(r, "a batch after the end filled %zu", filled);
    /* Any later reading: the end, not a wrap to tick 0. */
    const int64_t later[] = {end_us, end_us + 1, end_us + 86400000000LL,
                             wall_us()};
    for (size_t i = 0; i < sizeof later / sizeof later[0]; i++) {
      st = sfc_next_at(g, later[i], &id, &wait, &err);
      expect_status(r, st, SFC_TIME_EXHAUSTED, &err, "a reading past the end");
      if (st == SFC_OK) ids_push(&all, id);
    }
    if (!strstr(err.message, "ran out"))
      result_fail(r, "message: %s", err.message);
    r->faults += 6;
    sfc_generator_free(g);
    r->ids += all.n;
    r->dups += ids_dups(all.v, all.n);
    free(all.v);
  }
  /* A preset whose time field has run out (baidu, 2024): the live entry. */
  sfc_layout baidu;
  must(sfc_layout_preset("baidu", &baidu, &err), &err, "baidu");
  sfc_node_value node[] = {{"worker", 1, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  /* The preset's own epoch (its field has run out only there) is every
   * baidu user's on the machine: no claim, which this check is not about. */
  set_bool(&opts, SFC_OPTION_GUARD, false);
  sfc_generator *g;
  must(sfc_generator_new(&baidu, &opts, &g, &err), &err, "baidu generator");
  sfc_status st = sfc_next(g, &id, &err);
  expect_status(r, st, SFC_TIME_EXHAUSTED, &err, "baidu, now");
  r->faults++;
  sfc_generator_free(g);
}

typedef struct worker {
  sfc_generator *g;
  ids out;
  size_t want;
  bool batches;
  sfc_status st;
  sfc_error err;
} worker;

static void *seq_thread(void *arg) {
  worker *w = arg;
  uint64_t batch[5];
  while (w->out.n < w->want) {
    if (w->batches) {
      size_t got = 0;
      w->st = sfc_next_ids(w->g, batch, 5, &got, &w->err);
      ids_append(&w->out, batch, got);
    } else {
      uint64_t id;
      w->st = sfc_next(w->g, &id, &w->err);
      if (w->st == SFC_OK) ids_push(&w->out, id);
    }
    if (w->st != SFC_OK) break;
  }
  return NULL;
}

static void seq_limit(result *r) {
  for (int round = 0; round < 2; round++) {
    sfc_layout l;
    /* 8 IDs per millisecond per generator; round 1 with random starts. */
    random_start = round;
    sfc_generator *g = make("time:41@1ms,worker:4,seq:3", row_epoch_ms(),
                            SFC_ROLLBACK_DEFAULT, INT64_MIN, INT64_MIN, &l);
    worker w[2];
    memset(w, 0, sizeof w);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
      w[i].g = g;
      w[i].want = 1200;
      w[i].batches = (i + round) % 2;
      pthread_create(&th[i], NULL, seq_thread, &w[i]);
    }
    for (int i = 0; i < 2; i++)
      pthread_join(th[i], NULL);
    const uint64_t now_tick =
        (uint64_t)((wall_us() - row_epoch_ms() * 1000) / 1000);
    ids all = {0};
    for (int i = 0; i < 2; i++) {
      if (w[i].st != SFC_OK) {
        r->unexpected++;
        result_fail(r, "thread %d: %s: %s", i, sfc_status_name(w[i].st),
                    w[i].err.message);
      }
      if (!ids_increasing(w[i].out.v, w[i].out.n))
        result_fail(r, "thread %d: not increasing", i);
      for (size_t k = 0; k < w[i].out.n; k++)
        if (tick_of(&l, w[i].out.v[k]) > now_tick)
          result_fail(r, "an ID ahead of the clock without borrowing");
      ids_append(&all, w[i].out.v, w[i].out.n);
      free(w[i].out.v);
    }
    sfc_stats s;
    sfc_generator_stats(g, &s);
    print_stats("limits seq", g);
    /* 2400 IDs at 8 per tick: at least 300 ticks, so the sequence ran out
     * and the threads waited. */
    if (sfc_stats_uint(&s, SFC_STAT_WAITS) == 0)
      result_fail(r, "no waits with the sequence exhausted");
    if (sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) != all.n)
      result_fail(r, "ids_issued=%" PRIu64 ", not %zu",
                  sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED), all.n);
    r->faults += sfc_stats_uint(&s, SFC_STAT_WAITS);
    r->ids += all.n;
    r->dups += ids_dups(all.v, all.n);
    free(all.v);
    sfc_generator_free(g);
  }
}

static void borrow_limit(result *r) {
  sfc_layout l;
  sfc_error err;
  uint64_t id;
  int64_t wait = 0;
  /* 4 IDs per tick, 5 ticks of drift. */
  for (int waiting = 0; waiting < 2; waiting++) {
    ids all = {0}; /* per generator: they share a node value */
    sfc_generator *g = make("time:41@1ms,worker:4,seq:2", row_epoch_ms(),
                            SFC_ROLLBACK_BORROW, waiting ? 1000 : 0, 5, &l);
    const int64_t now = NOW_MS * 1000 + 200;
    const uint64_t now_tick = (uint64_t)(NOW_MS - row_epoch_ms());
    size_t got = 0;
    sfc_status st;
    while ((st = sfc_next_at(g, now, &id, &wait, &err)) == SFC_OK) {
      ids_push(&all, id);
      got++;
      if (tick_of(&l, id) > now_tick + 5)
        result_fail(r, "borrowed past 5 ticks");
      if (got > 100) break;
    }
    expect_status(r, st, SFC_WAIT, &err, "at the borrow bound");
    if (got != 24)
      result_fail(r, "%zu IDs at one reading, not 4 x (5 + 1)", got);
    if (st == SFC_WAIT && (wait <= 0 || wait > 1000))
      result_fail(r, "wait %lld us at the bound", (long long)wait);
    /* The batch form at the bound: nothing more. */
    uint64_t batch[8];
    size_t filled = 99;
    st = sfc_next_ids_at(g, now, batch, 8, &filled, &wait, &err);
    expect_status(r, st, SFC_WAIT, &err, "a batch at the bound");
    if (filled) result_fail(r, "a batch at the bound filled %zu", filled);
    /* A step back of 3 ms: 8 ticks behind the last issued, past the bound:
     * refused without max_wait, a wait with it. */
    st = sfc_next_at(g, now - 3000, &id, &wait, &err);
    expect_status(r, st, waiting ? SFC_WAIT : SFC_CLOCK_MOVED_BACKWARDS, &err,
                  "a step back past the bound");
    if (st == SFC_OK) ids_push(&all, id);
    r->faults += 2;
    /* The clock catches up: IDs resume after the borrowed ticks. */
    for (int i = 0; i < 40; i++) {
      st = sfc_next_at(g, now + 6000 + i * 100, &id, &wait, &err);
      if (st == SFC_OK) {
        if (tick_of(&l, id) <= now_tick + 5) result_fail(r, "reused a tick");
        ids_push(&all, id);
      } else if (st != SFC_WAIT) {
        expect_status(r, st, SFC_OK, &err, "after catching up");
        break;
      }
    }
    sfc_stats s;
    sfc_generator_stats(g, &s);
    print_stats("limits borrow", g);
    if (sfc_stats_uint(&s, SFC_STAT_BORROWED_TICKS) < 5)
      result_fail(r, "borrowed_ticks=%" PRIu64,
                  sfc_stats_uint(&s, SFC_STAT_BORROWED_TICKS));
    if (sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) != all.n)
      result_fail(r, "ids_issued=%" PRIu64 ", not %zu",
                  sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED), all.n);
    if (!ids_increasing(all.v, all.n)) result_fail(r, "not increasing");
    sfc_generator_free(g);
    r->ids += all.n;
    r->dups += ids_dups(all.v, all.n);
    free(all.v);
  }
}

/* A random walk of the clock — mostly forward, sometimes back by up to 10 ms,
 * now and then a jump of up to 3 s either way — through the deterministic
 * entries, for every strategy and a few layouts (narrow clock and sequence
 * fields, a 10 ms unit). Checks, over every call: no duplicate; strictly
 * increasing unless a clock bump was allowed; never a tick past the clock
 * plus max_drift; errors only ClockMovedBackwards, and only where the
 * strategy allows one. */
static uint64_t rng = 0x2545F4914F6CDD1Du;
static uint64_t next_rand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

static void walk(result *r, long steps) {
  static const char *const specs[] = {"time:41@1ms,clock:3,worker:7,seq:12",
                                      "time:41@1ms,clock:1,worker:4,seq:3",
                                      "time:39@10ms,clock:2,seq:4,worker:4",
                                      "time:41@1ms,worker:4,seq:1"};
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    for (int rb = SFC_ROLLBACK_DEFAULT; rb <= SFC_ROLLBACK_BORROW; rb++) {
      const bool has_clock = strstr(specs[k], "clock") != NULL;
      if (rb == SFC_ROLLBACK_CLOCK && !has_clock) continue;
      const char *rb_name = sfc_rollback_at((size_t)rb)->name;
      sfc_layout l;
      const int64_t drift_ms = rb == SFC_ROLLBACK_BORROW ? 20 : 0;
      sfc_generator *g =
          make(specs[k], row_epoch_ms(), (sfc_rollback)rb,
               rb == SFC_ROLLBACK_WAIT ? 50 : INT64_MIN, drift_ms, &l);
      const bool may_bump =
          has_clock && (rb == SFC_ROLLBACK_CLOCK || rb == SFC_ROLLBACK_DEFAULT);
      ids all = {0};
      int64_t now = NOW_MS * 1000;
      uint64_t batch[50];
      sfc_error err;
      for (long i = 0; i < steps; i++) {
        /* Per 100000 steps: 7500 steps back of up to 10 ms, 10 of up to
         * 500 ms, 2 of up to 3 s; 10 jumps ahead of up to 3 s. */
        const uint64_t x = next_rand() % 100000;
        int64_t d = (int64_t)(next_rand() % 300);
        if (x >= 70000 && x < 92000) d = (int64_t)(next_rand() % 5000);
        if (x >= 92000 && x < 99500) d = -(int64_t)(next_rand() % 10000);
        if (x >= 99500 && x < 99510) d = -(int64_t)(next_rand() % 500000);
        if (x >= 99510 && x < 99512) d = -(int64_t)(next_rand() % 3000000);
        if (x >= 99512 && x < 99522) d = (int64_t)(next_rand() % 3000000);
        now += d;
        if (d < 0) r->faults++;
        size_t want = next_rand() % 3 ? 1 : 1 + next_rand() % 50, got = 0;
        int64_t wait = 0;
        sfc_status st;
        if (want == 1) {
          st = sfc_next_at(g, now, batch, &wait, &err);
          got = st == SFC_OK;
        } else {
          st = sfc_next_ids_at(g, now, batch, want, &got, &wait, &err);
        }
        const int64_t now_tick = (now - l.epoch_ms * 1000) / l.unit_us;
        for (size_t j = 0; j < got; j++) {
          if ((int64_t)tick_of(&l, batch[j]) >
              now_tick + drift_ms * 1000 / l.unit_us) {
            result_fail(r, "%s %s: a tick past the clock + max_drift", specs[k],
                        rb_name);
            i = steps;
            break;
          }
          ids_push(&all, batch[j]);
        }
        if (st == SFC_WAIT) {
          if (wait <= 0) result_fail(r, "a wait of %lld us", (long long)wait);
          if (next_rand() % 2) now += wait; /* the caller waits */
        } else if (st == SFC_CLOCK_MOVED_BACKWARDS) {
          r->expected++;
          if (rb == SFC_ROLLBACK_CLOCK && has_clock &&
              !strstr(err.message, "clock values"))
            result_fail(r, "clock strategy refused: %s", err.message);
        } else if (st != SFC_OK) {
          r->unexpected++;
          result_fail(r, "%s %s: %s: %s", specs[k], rb_name,
                      sfc_status_name(st), err.message);
          break;
        }
      }
      sfc_stats s;
      sfc_generator_stats(g, &s);
      if (sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) != all.n)
        result_fail(r, "%s %s: ids_issued=%" PRIu64 ", not %zu", specs[k],
                    rb_name, sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED), all.n);
      if (!may_bump && !ids_increasing(all.v, all.n))
        result_fail(r, "%s %s: not increasing", specs[k], rb_name);
      if (may_bump && sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS) == 0)
        result_fail(r, "%s %s: no clock bump in the walk", specs[k], rb_name);
      size_t d = ids_dups(all.v, all.n);
      if (d) result_fail(r, "%s %s: %zu duplicates", specs[k], rb_name, d);
      r->dups += d;
      r->ids += all.n;
      free(all.v);
      sfc_generator_free(g);
    }
  }
}

int main(int argc, char **argv) {
  result r = {.ok = true};
  if (argc < 2) {
    fprintf(stderr, "usage: limits time|seq|borrow|walk [STEPS [SEED]]\n");
    return 2;
  }
  if (!strcmp(argv[1], "time"))
    time_limit(&r);
  else if (!strcmp(argv[1], "seq"))
    seq_limit(&r);
  else if (!strcmp(argv[1], "borrow"))
    borrow_limit(&r);
  else if (!strcmp(argv[1], "walk")) {
    if (argc > 3) rng = strtoull(argv[3], NULL, 0) | 1;
    walk(&r, argc > 2 ? atol(argv[2]) : 100000);
  } else
    return 2;
  if (r.dups) result_fail(&r, "%" PRIu64 " duplicate IDs", r.dups);
  result_print(&r);
  return r.ok ? 0 : 1;
}
