/* sfc_generator_close while other threads issue: every ID unique, every
 * call after the close answers the closed error, the last ID handed over
 * to the value's next holder; and the fast path's published rule
 * (sfc_generator_fast_rule), followed by a "binding" thread beside them. */
#include "check.h"

#include <stdatomic.h>

enum { THREADS = 3, PER_THREAD = 1 << 20 };

static const char *const CLOSED_MESSAGE =
    "the generator is closed: create a new one";

typedef enum how { BY_NEXT, BY_BATCH, BY_RULE, BY_INJECTED } how;

typedef struct job {
  sfc_generator *gen;
  how how;
  uint64_t *ids;
  size_t n;                /* IDs issued */
  int other_errors;        /* errors before the close other than the closed
                              one (a clock too far behind, injected) */
  int closed_errors;       /* the closed error, with the core's message */
  int wrong_after_closed;  /* anything but the closed error after one */
  _Atomic size_t progress; /* n, now and then, for the closing thread */
  atomic_int *started;     /* threads under way */
  atomic_bool *closed;     /* sfc_generator_close has returned */
  _Atomic int64_t *clock;  /* BY_INJECTED: the shared injected clock */
} job;

static bool is_closed_error(sfc_status st, const sfc_error *err) {
  return st == SFC_INVALID_ARGUMENT &&
         strcmp(err->message, CLOSED_MESSAGE) == 0;
}

/* The rule's steps, as a binding follows them: SFC_OK with an ID, or the
 * core's answer for anything else. */
static sfc_status next_by_rule(sfc_generator *g, const sfc_fast_rule *r,
                               uint64_t *id, sfc_error *err) {
  _Atomic uint64_t *word = (_Atomic uint64_t *)r->word;
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  const int64_t tick =
      (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - r->epoch_ms;
  uint64_t w = atomic_load(word);
  const int64_t t = (int64_t)(w >> r->time_shift);
  uint64_t next;
  if (t < tick && tick >= 0 && (uint64_t)tick <= r->time_max)
    next = (w & r->keep_mask) | ((uint64_t)tick << r->time_shift);
  else if (t == tick && (w & r->seq_mask) != r->seq_mask)
    next = w + r->seq_one;
  else
    return sfc_next(g, id, err);
  if (tick > atomic_load((_Atomic int64_t *)r->mark))
    return sfc_next(g, id, err); /* the hand-over is written first */
  if (!atomic_compare_exchange_strong(word, &w, next))
    return sfc_next(g, id, err);
  if (t != tick)
    atomic_fetch_add((_Atomic uint64_t *)r->issued_closed,
                     (w & r->seq_mask) / r->seq_one + 1);
  *id = next;
  return SFC_OK;
}

static sfc_status issue(job *j, const sfc_fast_rule *rule, uint64_t *out,
                        size_t *got, sfc_error *err) {
  *got = 0;
  sfc_status st;
  switch (j->how) {
  case BY_BATCH:
    return sfc_next_ids(j->gen, out, 7, got, err);
  case BY_RULE:
    st = next_by_rule(j->gen, rule, out, err);
    break;
  case BY_INJECTED: {
    /* 5 readings a ms, every 500th 30 ms back: rollback=clock bumps under
     * the lock while the close races it. */
    const int64_t step = atomic_fetch_add(j->clock, 1);
    const int64_t now = check_run_epoch() * 1000 + 3600000000 + step * 200 -
                        (step % 500 == 0 ? 30000 : 0);
    int64_t wait = 0;
    st = sfc_next_at(j->gen, now, out, &wait, err);
    if (st == SFC_WAIT) return SFC_OK;
    break;
  }
  default:
    st = sfc_next(j->gen, out, err);
  }
  if (st == SFC_OK) *got = 1;
  return st;
}

static void *work(void *arg) {
  job *j = arg;
  sfc_fast_rule rule;
  if (j->how == BY_RULE && !sfc_generator_fast_rule(j->gen, &rule)) {
    j->other_errors++;
    return NULL;
  }
  atomic_fetch_add(j->started, 1);
  sfc_error err;
  bool closed = false;
  uint64_t spare[8];
  /* Until 1000 calls made after the close returned. */
  for (int after = 0; after < 1000;) {
    /* Out of room before the close (its thread not scheduled for a while
     * on a busy machine): wait for it; what follows is not kept. */
    const bool full = j->n + 7 > PER_THREAD;
    while (full && !atomic_load(j->closed))
      sfc_pause(100);
    const bool late = atomic_load(j->closed); /* the call starts after it */
    size_t got = 0;
    sfc_status st = issue(j, &rule, full ? spare : j->ids + j->n, &got, &err);
    if (!full) j->n += got;
    if ((j->n & 1023) < got) atomic_store(&j->progress, j->n);
    after += late;
    if (is_closed_error(st, &err)) {
      closed = true;
      j->closed_errors++;
    } else if (late || closed) {
      j->wrong_after_closed++;
      if (j->wrong_after_closed < 3)
        fprintf(stderr, "after the close: %s %s\n", sfc_status_name(st),
                st == SFC_OK ? "" : err.message);
    } else if (st != SFC_OK) {
      j->other_errors++;
    }
  }
  return NULL;
}

static sfc_generator *make(const sfc_layout *l, int64_t worker,
                           sfc_rollback rollback, const char *state_dir) {
  sfc_status st;
  sfc_error err;
  sfc_generator *g =
      check_generator(l, "worker", worker, state_dir, rollback, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  return g;
}

/* Every entry answers the closed error once close has returned. */
static void check_all_closed(sfc_generator *g, const char *what) {
  sfc_error err;
  uint64_t id, ids[4];
  size_t got = 99;
  int64_t wait = 0;
  sfc_status st = sfc_next(g, &id, &err);
  CHECK(is_closed_error(st, &err), "%s: sfc_next: %s", what,
        sfc_status_name(st));
  st = sfc_next_ids(g, ids, 4, &got, &err);
  CHECK(is_closed_error(st, &err) && got == 0, "%s: sfc_next_ids: %s %zu", what,
        sfc_status_name(st), got);
  st = sfc_next_now(g, &id, &wait, &err);
  CHECK(is_closed_error(st, &err), "%s: sfc_next_now: %s", what,
        sfc_status_name(st));
  st = sfc_next_at(g, sfc_generator_now_us(g), &id, &wait, &err);
  CHECK(is_closed_error(st, &err), "%s: sfc_next_at: %s", what,
        sfc_status_name(st));
  st = sfc_next_ids_at(g, sfc_generator_now_us(g) - 500000, ids, 4, &got, &wait,
                       &err);
  CHECK(is_closed_error(st, &err), "%s: sfc_next_ids_at behind: %s", what,
        sfc_status_name(st));
}

/* Threads issue (each `how` of hows) while this one closes; then checks. */
static void race(const char *what, const sfc_layout *l, int64_t worker,
                 sfc_rollback rollback, const char *state_dir,
                 const how hows[THREADS], bool handed_over) {
  sfc_generator *g = make(l, worker, rollback, state_dir);
  if (!g) return;
  atomic_int started = 0;
  atomic_bool closed = false;
  _Atomic int64_t clock = 0;
  uint64_t *all = malloc(sizeof(uint64_t) * PER_THREAD * THREADS);
  if (!all) exit(99);
  job jobs[THREADS];
  check_thread tid[THREADS];
  for (int t = 0; t < THREADS; t++) {
    jobs[t] = (job){.gen = g,
                    .how = hows[t],
                    .ids = all + (size_t)t * PER_THREAD,
                    .started = &started,
                    .closed = &closed,
                    .clock = &clock};
    check_thread_start(&tid[t], work, &jobs[t]);
  }
  while (atomic_load(&started) < THREADS) {
  }
  /* Let them issue a while (some wait, some bump), and close before any
   * runs out of room. */
  const int64_t until = sfc_generator_now_us(g) + 20000;
  for (bool room = true; room && sfc_generator_now_us(g) < until;) {
    sfc_pause(200);
    for (int t = 0; t < THREADS; t++)
      room = room && atomic_load(&jobs[t].progress) < PER_THREAD / 2;
  }
  CHECK(!sfc_generator_closed(g) && !sfc_generator_closed(NULL),
        "%s: open before the close", what);
  sfc_generator_close(g);
  atomic_store(&closed, true);
  CHECK(sfc_generator_closed(g), "%s: closed after it", what);
  check_all_closed(g, what);
  sfc_generator_close(g); /* twice does nothing */
  size_t total = 0;
  for (int t = 0; t < THREADS; t++) {
    check_thread_join(tid[t]);
    const job *j = &jobs[t];
    CHECK(j->closed_errors > 0, "%s: thread %d never saw the close", what, t);
    CHECK(j->wrong_after_closed == 0,
          "%s: thread %d: %d answers after the closed error", what, t,
          j->wrong_after_closed);
    if (hows[t] != BY_INJECTED)
      CHECK(j->other_errors == 0, "%s: thread %d: %d errors", what, t,
            j->other_errors);
    /* Kept together at the front, for the duplicate check. */
    memmove(all + total, j->ids, j->n * sizeof *all);
    total += j->n;
  }
  CHECK(total > 0, "%s: nothing issued", what);
  check_all_closed(g, what);
  sfc_stats s;
  sfc_generator_stats(g, &s);
  if (!handed_over) /* injected: the phantom first tick differs */
    CHECK(sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) == total,
          "%s: stats say %" PRIu64 " IDs after the close, issued %zu", what,
          sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED), total);
  size_t dups = check_duplicates(all, total);
  CHECK(dups == 0, "%s: %zu duplicate IDs among %zu", what, dups, total);
  const uint64_t last = total ? all[total - 1] : 0; /* sorted */
  sfc_generator_free(g);

  if (handed_over) {
    /* The value's next holder starts after every ID issued. */
    sfc_generator *again = make(l, worker, rollback, state_dir);
    if (again) {
      uint64_t id = 0;
      sfc_error err;
      CHECK_STATUS(sfc_next(again, &id, &err), SFC_OK, err);
      CHECK(id > last,
            "%s: the next holder's first ID %" PRIu64 " is not after the "
            "last issued %" PRIu64,
            what, id, last);
      /* ...and from the real last tick, not the poison's. */
      CHECK((id >> 22) <= (last >> 22) + 2000,
            "%s: the next holder starts far ahead: %" PRIu64 " after %" PRIu64,
            what, id, last);
      sfc_generator_free(again);
    }
  }
  free(all);
}

/* The rule matches the layout, is refused where the fast path is off, and a
 * closed generator's word sends its steps to the core. */
static void rule_published(void) {
  const int64_t epoch = check_run_epoch();
  sfc_layout l = check_layout("time:41@1ms,clock:3,worker:7,seq:12", epoch);
  sfc_generator *g = make(&l, 90, SFC_ROLLBACK_DEFAULT, NULL);
  if (!g) return;
  sfc_fast_rule r;
  memset(&r, 0, sizeof r);
  CHECK(sfc_generator_fast_rule(g, &r), "a default generator has the rule");
  CHECK(!sfc_generator_may_block(g), "no state_dir: no call blocks");
  CHECK(r.epoch_ms == epoch && r.time_shift == 22 &&
            r.time_max == (UINT64_C(1) << 41) - 1 && r.seq_one == 1 &&
            r.seq_mask == 0xfff &&
            r.keep_mask == ~((((UINT64_C(1) << 41) - 1) << 22) | 0xfff),
        "the rule is the layout's packing");
  CHECK(r.word && (uintptr_t)r.word % 8 == 0 && r.issued_closed &&
            (uintptr_t)r.issued_closed % 8 == 0,
        "aligned addresses");
  sfc_error err;
  uint64_t a = 0, b = 0, c = 0;
  CHECK_STATUS(next_by_rule(g, &r, &a, &err), SFC_OK, err);
  CHECK_STATUS(sfc_next(g, &b, &err), SFC_OK, err);
  CHECK_STATUS(next_by_rule(g, &r, &c, &err), SFC_OK, err);
  CHECK(a < b && b < c, "by the rule and by the core, in order");
  CHECK(((a >> 12) & 0x7f) == 90 && ((c >> 12) & 0x7f) == 90,
        "the node bits stay");
  sfc_stats s;
  sfc_generator_stats(g, &s);
  CHECK(sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) == 3,
        "the stats count the rule's IDs: %" PRIu64,
        sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED));
  sfc_generator_close(g);
  CHECK(is_closed_error(next_by_rule(g, &r, &a, &err), &err),
        "the rule's steps on a closed generator end at the closed error");
  sfc_generator_stats(g, &s);
  CHECK(sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) == 4 ||
            sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) == 3,
        "the stats of a closed generator: %" PRIu64,
        sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED));
  sfc_generator_free(g);

  /* No rule where next_fast's predicate fails or its checks would not be
   * the rule's. */
  sfc_layout ten = check_layout("time:41@10ms,worker:10,seq:12", epoch);
  g = make(&ten, 91, SFC_ROLLBACK_DEFAULT, NULL);
  CHECK(g && !sfc_generator_fast_rule(g, &r), "10 ms ticks: no rule");
  sfc_generator_free(g);
  sfc_node_value node[] = {{"worker", 92, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_bool(&opts, SFC_OPTION_RANDOM_START, 1);
  g = NULL;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &g, &err), SFC_OK, err);
  CHECK(g && !sfc_generator_fast_rule(g, &r), "random start: no rule");
  sfc_generator_free(g);
  set_bool(&opts, SFC_OPTION_RANDOM_START, 0);
  set_time_source(&opts, SFC_TIME_MONOTONIC);
  g = NULL;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &g, &err), SFC_OK, err);
  CHECK(g && !sfc_generator_fast_rule(g, &r), "monotonic: no rule");
  sfc_generator_free(g);
  char dir[256];
  check_temp_folder("close-rule", dir, sizeof dir);
  g = make(&l, 93, SFC_ROLLBACK_DEFAULT, dir);
  CHECK(g && !sfc_generator_fast_rule(g, &r), "a state_dir: no rule");
  CHECK(g && sfc_generator_may_block(g), "a state_dir: calls may block");
  sfc_generator_free(g);
  CHECK(!sfc_generator_fast_rule(NULL, &r), "NULL: no rule");
  CHECK(!sfc_generator_may_block(NULL), "NULL: no call blocks");
}

int main(void) {
  const int64_t epoch = check_run_epoch();
  sfc_layout l = check_layout("time:41@1ms,clock:3,worker:7,seq:12", epoch);
  rule_published();
  const how live[THREADS] = {BY_NEXT, BY_RULE, BY_BATCH};
  race("live", &l, 10, SFC_ROLLBACK_DEFAULT, NULL, live, true);
  /* A tiny sequence: borrowing runs ahead of the clock, and the hand-over
   * must carry the real last tick. */
  sfc_layout tiny = check_layout("time:41@1ms,clock:3,worker:7,seq:2", epoch);
  race("borrowing", &tiny, 11, SFC_ROLLBACK_BORROW, NULL, live, true);
  char dir[256];
  check_temp_folder("close", dir, sizeof dir);
  const how with_state[THREADS] = {BY_NEXT, BY_NEXT, BY_BATCH};
  race("state_dir", &tiny, 12, SFC_ROLLBACK_BORROW, dir, with_state, true);
  const how stepping[THREADS] = {BY_INJECTED, BY_INJECTED, BY_INJECTED};
  race("rollback=clock, clock stepping back", &l, 13, SFC_ROLLBACK_CLOCK, NULL,
       stepping, false);
  return check_summary();
}
