/* The slow path — a tick's sequence used up, borrowing, the time field's
 * end — and the rollback strategies: one row each, with what it does once
 * the wait for the clock is over. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static sfc_status time_exhausted(const sfc_generator *g, sfc_error *err) {
  sfc_layout_info info;
  sfc_layout_describe(&g->layout, &info);
  char iso[SFC_ISO_MAX];
  sfc_format_iso(info.time_end_ms, iso, sizeof iso);
  return sfc_fail(err, SFC_TIME_EXHAUSTED,
                  "the layout's %u-bit time field ran out at %s: it can issue "
                  "no more IDs; move to a layout with a later epoch or a wider "
                  "time field",
                  g->layout.fields[0].bits, iso);
}

static int64_t tick_start_us(const sfc_generator *g, int64_t tick) {
  return g->epoch_us + tick * g->unit_us;
}

static sfc_status refuse(sfc_generator *g, int64_t now_us, int64_t t,
                         const char *why, sfc_error *err) {
  atomic_fetch_add_explicit(&g->rollbacks_refused, 1, memory_order_relaxed);
  int64_t behind_us = tick_start_us(g, t) - now_us;
  char was[SFC_ISO_MAX], now[SFC_ISO_MAX];
  sfc_format_iso(tick_start_us(g, t) / 1000, was, sizeof was);
  sfc_format_iso(now_us / 1000, now, sizeof now);
  return sfc_fail(err, SFC_CLOCK_MOVED_BACKWARDS,
                  "the clock moved backwards by %lld.%03lld ms (now %s, last "
                  "ID at %s) and rollback=%s %s",
                  (long long)(behind_us / 1000), (long long)(behind_us % 1000),
                  now, was, sfc_rollback_name(g->rollback), why);
}

/* Moves to the next clock value whose last tick is behind `tick`, and
 * issues the first ID under it. The state file, the clock table and the
 * state word all change under g->lock, so that the keeper (which persists
 * under that lock) never writes a clock value older than the one in use. */
static sfc_status bump_clock(sfc_generator *g, int64_t now_us, int64_t tick,
                             int64_t last, uint64_t *first, sfc_error *err) {
  (void)last; /* read again under the lock */
  const sfc_packing *p = &g->pack;
  sfc_mutex_lock(&g->lock);
  if (sfc_closed(g)) {
    sfc_mutex_unlock(&g->lock);
    return sfc_fail_closed(g, err);
  }
  uint64_t w = atomic_load(&g->word);
  int64_t t = (int64_t)sfc_word_time(p, w);
  uint64_t c = sfc_word_clock(p, w);
  if (t - tick <= g->drift_ticks) { /* another thread has moved on */
    sfc_mutex_unlock(&g->lock);
    return SFC_RETRY;
  }
  if (g->last[c] < t) g->last[c] = t;
  uint64_t values = p->clock_max + 1;
  for (uint64_t k = 1; k < values; k++) {
    uint64_t next = (c + k) % values;
    if (g->last[next] >= tick) continue;
    if (g->has_state && g->state.lost) {
      sfc_status st = sfc_keeper_failed(g, err);
      sfc_mutex_unlock(&g->lock);
      return st;
    }
    /* Until the word switches, threads on the fast path may still issue
     * under c, up to the marks (which cannot move while we hold the lock):
     * the files say c is in use that far, so a crash in between cannot
     * leave c looking free below an ID issued under it. */
    sfc_status st =
        sfc_guard_move(g, c, atomic_load(&g->mark), next, tick, err);
    if (st == SFC_OK && g->has_state) {
      int64_t exact = g->last[c], mark = atomic_load(&g->state_mark);
      if (g->last[c] < mark) g->last[c] = mark;
      st = sfc_state_file_write(g, mark, next, err);
      g->last[c] = exact;
    }
    if (st != SFC_OK) {
      sfc_mutex_unlock(&g->lock);
      return st;
    }
    if (sfc_test_hook) sfc_test_hook("bump_clock: written, word not switched");
    const uint64_t id =
        sfc_word(p, (uint64_t)tick, next, sfc_seq_start(g, (uint64_t)tick));
    /* Only IDs under c can have been issued meanwhile (the clock field
     * switches under this lock): keep c's last tick exact. */
    t = (int64_t)sfc_word_time(p, sfc_word_install(g, w, id));
    if (g->last[c] < t) g->last[c] = t;
    sfc_mark_update(g);
    atomic_fetch_add_explicit(&g->clock_bumps, 1, memory_order_relaxed);
    sfc_mutex_unlock(&g->lock);
    *first = id;
    return SFC_TAKEN;
  }
  int64_t earliest = INT64_MAX;
  for (uint64_t k = 1; k < values; k++)
    if (g->last[(c + k) % values] < earliest)
      earliest = g->last[(c + k) % values];
  sfc_mutex_unlock(&g->lock);
  char msg[160], iso[SFC_ISO_MAX];
  sfc_format_iso(tick_start_us(g, earliest + 1) / 1000, iso, sizeof iso);
  snprintf(msg, sizeof msg,
           "found every one of the %llu clock values in use until %s; wait "
           "for the clock to pass it or widen the clock field",
           (unsigned long long)values, iso);
  return refuse(g, now_us, t, msg, err);
}

/* rollback=switch: another free value of the pool, whose IDs are all
 * behind the clock, and the first ID at `tick` under it. */
static sfc_status switch_value(sfc_generator *g, int64_t now_us, int64_t tick,
                               int64_t last, uint64_t *first, sfc_error *err) {
  const sfc_packing *p = &g->pack;
  sfc_mutex_lock(&g->lock);
  if (sfc_closed(g)) {
    sfc_mutex_unlock(&g->lock);
    return sfc_fail_closed(g, err);
  }
  uint64_t w = atomic_load(&g->word);
  if ((int64_t)sfc_word_time(p, w) - tick <= g->drift_ticks) {
    sfc_mutex_unlock(&g->lock); /* another thread has moved on */
    return SFC_RETRY;
  }
  sfc_status st = sfc_keeper_failed(g, err);
  sfc_saved saved;
  int64_t mark = 0;
  if (st == SFC_OK) st = sfc_pool_switch(g, tick, &saved, &mark, err);
  if (st != SFC_OK) {
    sfc_mutex_unlock(&g->lock);
    if (st != SFC_CLOCK_MOVED_BACKWARDS) return st;
    char why[160];
    snprintf(why, sizeof why, "%.150s", err ? err->message : "");
    return refuse(g, now_us, last, why, err);
  }
  /* The new value's record, written ahead of its first ID. */
  st = sfc_guard_move(g, saved.clock, SFC_NEVER, saved.clock, tick, err);
  if (st == SFC_OK) st = sfc_guard_settle(g, err);
  if (st != SFC_OK) {
    /* Half switched: the generator stops for good rather than issue under
     * a value its record does not cover. */
    g->state.lost = true;
    g->state.error_status = st;
    snprintf(g->state.error_message, sizeof g->state.error_message, "%s",
             err ? err->message : "the hand-over record cannot be written");
    atomic_store(&g->state_mark, -1);
    sfc_mark_update(g);
    sfc_mutex_unlock(&g->lock);
    return st;
  }
  sfc_word_set_node(g);
  const uint64_t id = sfc_word(p, (uint64_t)tick, saved.clock,
                               sfc_seq_start(g, (uint64_t)tick));
  sfc_word_install(g, w, id);
  atomic_store(&g->state_mark, mark);
  /* What the start handed over belongs to the value left (parked with its
   * mark): the clock's IDs go on under the new one, from its word. */
  atomic_store(&g->clock_handed, false);
  sfc_mark_update(g);
  atomic_fetch_add_explicit(&g->node_switches, 1, memory_order_relaxed);
  sfc_mutex_unlock(&g->lock);
  *first = id;
  return SFC_TAKEN;
}

static sfc_status refuse_at_once(sfc_generator *g, int64_t now_us, int64_t tick,
                                 int64_t last, uint64_t *first,
                                 sfc_error *err) {
  (void)tick, (void)first;
  return refuse(g, now_us, last,
                "refuses to issue IDs until the clock passes the last ID; "
                "use rollback=wait or clock to ride it out",
                err);
}

static sfc_status refuse_after_wait(sfc_generator *g, int64_t now_us,
                                    int64_t tick, int64_t last, uint64_t *first,
                                    sfc_error *err) {
  (void)tick, (void)first;
  char why[96];
  snprintf(why, sizeof why,
           "waits at most %lld ms; raise max_wait or use rollback=clock",
           (long long)(g->max_wait_us / 1000));
  return refuse(g, now_us, last, why, err);
}

/* One row per strategy, in sfc_rollback order. */
typedef struct strategy {
  sfc_rollback_info info;
  bool waits; /* waits up to max_wait for the clock first */
  /* What it does when the clock is still behind after the wait. */
  sfc_status (*step)(sfc_generator *g, int64_t now_us, int64_t tick,
                     int64_t last, uint64_t *first, sfc_error *err);
} strategy;

static const strategy strategies[] = {
    {{SFC_ROLLBACK_DEFAULT, "default", 5, 0, 0,
      "wait, then clock where the layout has a clock field, else refuse"},
     true,
     refuse_after_wait},
    {{SFC_ROLLBACK_ERROR, "error", 0, 0, 0,
      "refuse at once with clock_moved_backwards"},
     false,
     refuse_at_once},
    {{SFC_ROLLBACK_WAIT, "wait", 1000, 0, 0,
      "wait for the clock to catch up, then refuse"},
     true,
     refuse_after_wait},
    {{SFC_ROLLBACK_CLOCK, "clock", 0, 0, SFC_NEEDS_CLOCK_FIELD,
      "wait, then bump the clock field and go on at once"},
     true,
     bump_clock},
    {{SFC_ROLLBACK_BORROW, "borrow", 1000, 1000, 0,
      "issue ahead of the clock up to max_drift, then wait, then refuse"},
     true,
     refuse_after_wait},
    {{SFC_ROLLBACK_SWITCH, "switch", 5, 0, SFC_NEEDS_POOL,
      "wait, then take another free value of the pool and go on at once"},
     true,
     switch_value},
};

#define STRATEGY_COUNT (sizeof strategies / sizeof strategies[0])
_Static_assert(STRATEGY_COUNT == SFC_ROLLBACK_COUNT, "one row per strategy");

const sfc_rollback_info *sfc_rollback_at(size_t i) {
  return i < STRATEGY_COUNT ? &strategies[i].info : NULL;
}

const char *sfc_rollback_name(sfc_rollback rollback) {
  return (unsigned)rollback < STRATEGY_COUNT ? strategies[rollback].info.name
                                             : "unknown";
}

/* What each need asks of the layout and the options. */
static const struct {
  unsigned need;
  const char *why;
} needs[] = {
    {SFC_NEEDS_CLOCK_FIELD,
     "needs a clock field in the layout: add clock:BITS (as the default "
     "preset does) or choose wait, borrow or error"},
    {SFC_NEEDS_POOL, "takes another value from the pool: it needs a node "
                     "field set to auto and a state_dir"},
};

sfc_status sfc_rollback_resolve(sfc_rollback asked, const sfc_layout *layout,
                                bool pooled, sfc_rollback *out,
                                sfc_error *err) {
  const unsigned has = (layout->clock_index >= 0 ? SFC_NEEDS_CLOCK_FIELD : 0) |
                       (pooled ? SFC_NEEDS_POOL : 0);
  const sfc_rollback_info *r = &strategies[asked].info;
  for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
    if ((r->needs & needs[i].need) && !(has & needs[i].need))
      return sfc_fail(err, SFC_INVALID_ARGUMENT, "rollback '%s' %s", r->name,
                      needs[i].why);
  /* The default rides a rollback out with the clock field where there is
   * one; without, it refuses as wait does (its own max_wait). */
  *out = asked;
  if (asked == SFC_ROLLBACK_DEFAULT)
    *out =
        (has & SFC_NEEDS_CLOCK_FIELD) ? SFC_ROLLBACK_CLOCK : SFC_ROLLBACK_WAIT;
  return SFC_OK;
}

sfc_status sfc_slow_path(sfc_generator *g, int64_t now_us, int64_t tick,
                         uint64_t seen, uint64_t *first, int64_t *wait_us,
                         sfc_error *err) {
  /* `seen` may be the poison of a closed generator: `closed` was set
   * before it went in. Once the close has left the lock, the poison is in:
   * no later call of this thread issues. */
  atomic_thread_fence(memory_order_acquire);
  if (sfc_closed(g)) {
    sfc_mutex_lock(&g->lock);
    sfc_mutex_unlock(&g->lock);
    return sfc_fail_closed(g, err);
  }
  const sfc_packing *p = &g->pack;
  const int64_t t = (int64_t)sfc_word_time(p, seen);
  if ((uint64_t)tick > p->time_max) return time_exhausted(g, err);
  if (t - tick <= g->drift_ticks) {
    /* The tick's sequence is used up (t may be ahead by borrowing). */
    if ((uint64_t)t + 1 > p->time_max) return time_exhausted(g, err);
    if (t + 1 - tick <= g->drift_ticks) {
      /* The node bits come with the word: rollback=switch changes them. */
      *first = (seen & p->keep_mask) | ((uint64_t)(t + 1) << p->time_shift) |
               (sfc_seq_start(g, (uint64_t)t + 1) << p->seq_shift);
      return SFC_OK;
    }
    *wait_us = tick_start_us(g, t + 1 - g->drift_ticks) - now_us;
    return SFC_WAIT;
  }

  /* The clock is behind the last tick issued by more than max_drift. */
  if (atomic_exchange(&g->rollback_seen, t) != t)
    atomic_fetch_add_explicit(&g->rollbacks, 1, memory_order_relaxed);
  const int64_t catch_up_us = tick_start_us(g, t - g->drift_ticks) - now_us;
  if (strategies[g->rollback].waits && catch_up_us <= g->max_wait_us) {
    atomic_fetch_add_explicit(&g->rollbacks_waited, 1, memory_order_relaxed);
    *wait_us = catch_up_us;
    return SFC_WAIT;
  }
  return strategies[g->rollback].step(g, now_us, tick, t, first, err);
}
