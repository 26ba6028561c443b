/* The slow path: sequence exhausted, borrowing, clock steps backwards, the
 * time field's end, the persisted mark. */
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

void (*sfc_test_hook)(const char *point);

/* The keeper's last failure (a write, or the value lost), under g->lock. */
static sfc_status stored_error(const sfc_generator *g, sfc_error *err) {
  sfc_status st = (sfc_status)g->state.error_status;
  if (err) {
    err->status = st;
    snprintf(err->message, sizeof err->message, "%s", g->state.error_message);
  }
  return st;
}

/* Moves to the next clock value whose last tick is behind `tick`, and
 * issues the first ID under it. The state file, the clock table and the
 * state word all change under g->lock, so that the keeper (which persists
 * under that lock) never writes a clock value older than the one in use. */
static sfc_status bump_clock(sfc_generator *g, int64_t now_us, int64_t tick,
                             uint64_t *first, sfc_error *err) {
  const sfc_packing *p = &g->pack;
  sfc_mutex_lock(&g->lock);
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
      sfc_status st = stored_error(g, err);
      sfc_mutex_unlock(&g->lock);
      return st;
    }
    if (g->has_state) {
      /* Until the word switches, threads on the fast path may still issue
       * under c, up to the mark (which cannot move while we hold the lock):
       * the file says c is in use that far, so a crash in between cannot
       * leave c looking free below an ID issued under it. */
      int64_t exact = g->last[c], mark = atomic_load(&g->mark);
      if (g->last[c] < mark) g->last[c] = mark;
      sfc_status st = sfc_state_write(g, mark, next, err);
      g->last[c] = exact;
      if (st != SFC_OK) {
        sfc_mutex_unlock(&g->lock);
        return st;
      }
    }
    if (sfc_test_hook) sfc_test_hook("bump_clock: written, word not switched");
    const uint64_t id =
        sfc_word(p, (uint64_t)tick, next, sfc_seq_start(g, (uint64_t)tick));
    while (!atomic_compare_exchange_weak(&g->word, &w, id)) {
      /* Only IDs under c can have been issued meanwhile (the clock field
       * switches under this lock): keep c's last tick exact. */
      int64_t t2 = (int64_t)sfc_word_time(p, w);
      if (g->last[c] < t2) g->last[c] = t2;
    }
    t = (int64_t)sfc_word_time(p, w);
    atomic_fetch_add_explicit(&g->issued_closed,
                              sfc_word_seq(p, w) -
                                  sfc_seq_start(g, (uint64_t)t) + 1,
                              memory_order_relaxed);
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

sfc_status sfc_slow_path(sfc_generator *g, int64_t now_us, int64_t tick,
                         uint64_t seen, uint64_t *first, int64_t *wait_us,
                         sfc_error *err) {
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
  if (g->rollback != SFC_ROLLBACK_ERROR && catch_up_us <= g->max_wait_us) {
    atomic_fetch_add_explicit(&g->rollbacks_waited, 1, memory_order_relaxed);
    *wait_us = catch_up_us;
    return SFC_WAIT;
  }
  switch (g->rollback) {
  case SFC_ROLLBACK_CLOCK:
    return bump_clock(g, now_us, tick, first, err);
  case SFC_ROLLBACK_SWITCH: {
    sfc_status st = sfc_state_switch(g, tick, first, err);
    if (st == SFC_CLOCK_MOVED_BACKWARDS) {
      char msg[160];
      snprintf(msg, sizeof msg, "%.150s", err ? err->message : "");
      return refuse(g, now_us, t, msg, err);
    }
    return st;
  }
  case SFC_ROLLBACK_WAIT:
  case SFC_ROLLBACK_BORROW: {
    char msg[96];
    snprintf(msg, sizeof msg,
             "waits at most %lld ms; raise max_wait or use rollback=clock",
             (long long)(g->max_wait_us / 1000));
    return refuse(g, now_us, t, msg, err);
  }
  default:
    return refuse(g, now_us, t,
                  "refuses to issue IDs until the clock passes the last ID; "
                  "use rollback=wait or clock to ride it out",
                  err);
  }
}

sfc_status sfc_mark_reached(sfc_generator *g, uint64_t tick, int64_t *wait_us,
                            sfc_error *err) {
  sfc_mutex_lock(&g->lock);
  if ((int64_t)tick <= atomic_load(&g->mark)) {
    sfc_mutex_unlock(&g->lock);
    return SFC_RETRY;
  }
  if (g->state.error_status != 0) {
    sfc_status st = stored_error(g, err);
    sfc_mutex_unlock(&g->lock);
    return st;
  }
  int64_t wanted = atomic_load(&g->wanted_mark);
  if ((int64_t)tick > wanted) atomic_store(&g->wanted_mark, (int64_t)tick);
  sfc_cond_signal(&g->state.wake);
  sfc_mutex_unlock(&g->lock);
  *wait_us = 1000;
  return SFC_WAIT;
}
