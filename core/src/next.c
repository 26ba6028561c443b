/* Taking IDs: the lock-free hot path, its fast paths (none, wall, counter),
 * the caller's times, batches, and the general path it falls to. */
#include "internal.h"

#include <time.h>

static inline int64_t ts_us(const struct timespec *ts) {
  return (int64_t)ts->tv_sec * 1000000 + ts->tv_nsec / 1000;
}

/* The clock read of the hot path, inlined: one vDSO call, as wall time. */
static inline void read_clock(const sfc_generator *g, struct timespec *ts) {
  if (SFC_LIKELY(g->time_source != SFC_TIME_MONOTONIC)) {
    sfc_os_wall(ts);
    return;
  }
  sfc_os_monotonic(ts);
  int64_t us = ts_us(ts) + g->mono_offset_us;
  ts->tv_sec = (time_t)(us / 1000000);
  ts->tv_nsec = (long)(us % 1000000) * 1000;
}

static inline int64_t to_tick(const sfc_generator *g, int64_t since_us) {
  /* Constant divisors compile to multiplications. */
  if (SFC_LIKELY(g->unit_us == 1000)) return since_us / 1000;
  switch (g->unit_us) {
  case 1:
    return since_us;
  case 10000:
    return since_us / 10000;
  case 1000000:
    return since_us / 1000000;
  default:
    return since_us / g->unit_us;
  }
}

/* The tick of a reading; negative before the epoch. Millisecond ticks skip
 * the microseconds: one division instead of two. */
static inline int64_t tick_of(const sfc_generator *g,
                              const struct timespec *ts) {
  if (SFC_LIKELY(g->unit_us == 1000))
    return (int64_t)ts->tv_sec * 1000 + ts->tv_nsec / 1000000 -
           g->layout.epoch_ms;
  int64_t since = ts_us(ts) - g->epoch_us;
  return since < 0 ? -1 : to_tick(g, since);
}

/* After a lost compare-and-swap: step aside for a moment, so that the
 * thread that won issues a run of IDs while the state word's cache line
 * stays in its core, instead of the line crossing between cores on every
 * ID. Two threads on one generator issue faster together than one alone,
 * where without it each ID costs a crossing (benchmarks/README.md, "Two
 * threads"). */
static SFC_NOINLINE void contended(void) {
  for (int i = 0; i < SFC_CONTENDED_PAUSES; i++)
    sfc_cpu_pause();
}

/* Reserves up to `want` consecutive sequence values with one CAS. On SFC_OK,
 * `*first` is the state word of the first ID and `*count` how many.
 *
 * `live`: read the clock here (or take now_us > 0 as a reading just made
 * by the fast path, so as not to read twice). A thread preempted
 * between its clock read and the CAS holds a stale reading that looks like
 * a rollback; a live call re-reads the clock after seeing the state word, so
 * only a clock that is still behind counts as one. */
static SFC_ALWAYS_INLINE sfc_status take(sfc_generator *g, int64_t now_us,
                                         bool live, uint64_t want,
                                         uint64_t *first, uint64_t *count,
                                         int64_t *wait_us, sfc_error *err) {
  if (SFC_UNLIKELY(
          atomic_load_explicit(&g->forks_seen, memory_order_acquire) !=
          atomic_load_explicit(&sfc_fork_generation, memory_order_relaxed))) {
    sfc_status st = sfc_check_fork(g, err);
    if (st != SFC_OK) return st;
  }
  /* The clock's first call after a caller's own timeline began. */
  if (live && SFC_UNLIKELY(
                  atomic_load_explicit(&g->clock_handed, memory_order_acquire)))
    sfc_clock_resume(g);
  struct timespec ts = {0, 0};
  int64_t tick;
  if (live) {
    if (now_us > 0) { /* the fast path's reading, not yet a second one */
      ts.tv_sec = (time_t)(now_us / 1000000);
      ts.tv_nsec = (long)(now_us % 1000000) * 1000;
    } else {
      read_clock(g, &ts);
    }
    tick = tick_of(g, &ts);
  } else {
    tick = now_us < g->epoch_us ? -1 : to_tick(g, now_us - g->epoch_us);
  }
  if (SFC_UNLIKELY(tick < 0)) {
    char iso[SFC_ISO_MAX];
    sfc_format_iso(g->layout.epoch_ms, iso, sizeof iso);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "the clock reads %lld us, before the layout's epoch %s",
                    (long long)(live ? ts_us(&ts) : now_us), iso);
  }
  const sfc_packing *p = &g->pack;
  /* Every read of the word acquires: a mark read after it is as new as the
   * word (a mark moves down before the word it guards changes, word.c). */
  uint64_t w = atomic_load_explicit(&g->word, memory_order_acquire);
  int rereads = 0;
  for (;;) {
    const uint64_t t = sfc_word_time(p, w), s = sfc_word_seq(p, w);
    uint64_t base, n;
    if (SFC_LIKELY((int64_t)t < tick && (uint64_t)tick <= p->time_max)) {
      uint64_t s0 = sfc_seq_start(g, (uint64_t)tick);
      base = (w & p->keep_mask) | ((uint64_t)tick << p->time_shift) |
             (s0 << p->seq_shift);
      n = p->seq_max - s0 + 1;
    } else if (SFC_LIKELY(s < p->seq_max && (int64_t)t >= tick &&
                          (int64_t)t - tick <= g->drift_ticks)) {
      base = w + p->seq_one;
      n = p->seq_max - s;
    } else if (live && (int64_t)t - tick > g->drift_ticks && rereads++ < 3) {
      w = atomic_load_explicit(&g->word, memory_order_acquire);
      read_clock(g, &ts);
      int64_t again = tick_of(g, &ts);
      if (again >= 0) tick = again;
      continue;
    } else {
      /* A caller's own time before anything was issued: its timeline
       * starts from nothing, or from its state files' (word.c). */
      if (!live && SFC_UNLIKELY(w == g->start_word)) {
        sfc_status st = sfc_start_caller_timed(g, w, err);
        if (st != SFC_OK) return st;
        w = atomic_load_explicit(&g->word, memory_order_acquire);
        continue;
      }
      if (live) now_us = ts_us(&ts);
      sfc_status st = sfc_slow_path(g, now_us, tick, w, &base, wait_us, err);
      if (st == SFC_RETRY) {
        w = atomic_load_explicit(&g->word, memory_order_acquire);
        continue;
      }
      if (st == SFC_TAKEN) { /* a clock bump: its first ID is installed */
        *first = base;
        *count = 1;
        return SFC_OK;
      }
      if (st != SFC_OK) {
        if (st == SFC_WAIT)
          atomic_fetch_add_explicit(&g->waits, 1, memory_order_relaxed);
        return st;
      }
      n = p->seq_max - sfc_word_seq(p, base) + 1;
    }
    if (want == 1 || n > want) n = want;
    const uint64_t next = base + (n - 1) * p->seq_one;
    const uint64_t next_t = sfc_word_time(p, next);
    /* A live call's IDs are within the marks written ahead; a caller's own
     * times only within the state file's (the record leaves them out). */
    if (SFC_UNLIKELY((int64_t)next_t >
                     atomic_load_explicit(live ? &g->mark : &g->state_mark,
                                          memory_order_relaxed))) {
      /* The clock's timeline handed over meanwhile (its mark -1 until the
       * clock's first call takes it back): this is that call. */
      if (live && atomic_load(&g->clock_handed)) {
        sfc_clock_resume(g);
        w = atomic_load_explicit(&g->word, memory_order_acquire);
        continue;
      }
      sfc_status st = sfc_keeper_mark_reached(g, next_t, live, wait_us, err);
      if (st == SFC_RETRY) continue;
      if (st == SFC_WAIT)
        atomic_fetch_add_explicit(&g->waits, 1, memory_order_relaxed);
      return st;
    }
    sfc_step();
    if (atomic_compare_exchange_weak_explicit(
            &g->word, &w, next, memory_order_acquire, memory_order_acquire)) {
      if (sfc_word_other_tick(p, next, w)) {
        atomic_fetch_add_explicit(&g->issued_closed,
                                  s - sfc_seq_start(g, t) + 1,
                                  memory_order_relaxed);
        if ((int64_t)next_t > tick && next_t != t)
          atomic_fetch_add_explicit(&g->borrowed, 1, memory_order_relaxed);
      }
      *first = base;
      *count = n;
      return SFC_OK;
    }
    contended();
    w = atomic_load_explicit(&g->word, memory_order_acquire);
    if (live) { /* the reading is stale after the pause: not a step back */
      read_clock(g, &ts);
      int64_t again = tick_of(g, &ts);
      if (again >= 0) tick = again;
    }
  }
}

static SFC_ALWAYS_INLINE sfc_status next_one(sfc_generator *gen, int64_t now_us,
                                             bool live, uint64_t *id,
                                             int64_t *wait_us, sfc_error *err) {
  uint64_t first = 0, n = 0;
  int64_t wait = 0;
  sfc_status st = take(gen, now_us, live, 1, &first, &n, &wait, err);
  if (SFC_LIKELY(st == SFC_OK)) {
    *id = first;
    return SFC_OK;
  }
  if (st == SFC_WAIT && wait_us) *wait_us = wait;
  return st;
}

/* Whether the word `next` may be issued without moving a mark written
 * ahead (the state file's, the hand-over record's). */
static inline bool within_mark(const sfc_generator *g, uint64_t next) {
  return next < atomic_load_explicit(&g->mark_word, memory_order_relaxed);
}

/* time_source=counter: the next sequence value of the word's tick while
 * the counter is below that tick's deadline (counter.c). `*count` is the
 * counter read, before any clock reading that follows. */
static inline bool next_counted(sfc_generator *g, uint64_t *id,
                                uint64_t *count) {
  const sfc_packing *p = &g->pack;
  /* After a lost compare-and-swap, a step aside and a fresh look: still in
   * the same tick, it is tried again, a clock read being dearer. */
  for (int tries = 0; tries < 8; tries++) {
    const uint64_t until =
        atomic_load_explicit(&g->until, memory_order_relaxed);
    uint64_t w = atomic_load_explicit(&g->word, memory_order_acquire);
    *count = sfc_cpu_counter();
    if (((*count - g->counter_base) >> g->counter_shift) >= until >> 16 ||
        (uint16_t)(w >> p->time_shift) != (uint16_t)until ||
        sfc_word_seq(p, w) == p->seq_max)
      return false;
    const uint64_t next = w + p->seq_one;
    if (!within_mark(g, next)) return false;
    sfc_step();
    if (atomic_compare_exchange_weak_explicit(
            &g->word, &w, next, memory_order_relaxed, memory_order_relaxed)) {
      *id = next;
      return true;
    }
    contended();
  }
  return false;
}

/* The common case in a few instructions: wall clock, millisecond ticks, a
 * new tick or the next sequence value of the current one, no contention.
 * Anything else — and a lost compare-and-swap — goes the general way. The
 * steps after the predicate are the published rule's (sfc_fast_rule).
 * `counted`: time_source=counter, whose counter was read at `count`, and
 * whose reading sets the tick's deadline. */
static SFC_ALWAYS_INLINE bool next_read(sfc_generator *g, uint64_t *id,
                                        int64_t *read_us, bool counted,
                                        uint64_t count) {
  const sfc_packing *p = &g->pack;
  struct timespec ts;
  sfc_os_wall(&ts);
  const int64_t tick =
      (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - g->layout.epoch_ms;
  uint64_t w = atomic_load_explicit(&g->word, memory_order_acquire);
  const int64_t t = (int64_t)(w >> p->time_shift);
  uint64_t next;
  if (t < tick && tick >= 0 && (uint64_t)tick <= p->time_max)
    next = (w & p->keep_mask) | ((uint64_t)tick << p->time_shift);
  else if (t == tick && sfc_word_seq(p, w) != p->seq_max)
    next = w + p->seq_one;
  else
    goto missed;
  if (!within_mark(g, next)) goto missed;
  sfc_step();
  if (!atomic_compare_exchange_strong_explicit(
          &g->word, &w, next, memory_order_relaxed, memory_order_relaxed)) {
    contended();
    *read_us = 0; /* stale now: the general path reads the clock again */
    return false;
  }
  if (t != tick) /* the last tick is closed: count its IDs */
    atomic_fetch_add_explicit(&g->issued_closed, sfc_word_seq(p, w) + 1,
                              memory_order_relaxed);
  /* The tick's deadline, unless another thread's reading of it set one. */
  if (counted &&
      (t != tick || (uint16_t)atomic_load_explicit(
                        &g->until, memory_order_relaxed) != (uint16_t)tick))
    sfc_counter_arm(g, count, ts.tv_nsec, tick);
  *id = next;
  return true;
missed:
  *read_us = ts_us(&ts); /* handed on to the general path */
  return false;
}

/* time_source=counter's fast path, out of line: the wall clock's, inlined
 * into every entry, then saves no registers for it. */
static SFC_NOINLINE bool next_fast_counted(sfc_generator *g, uint64_t *id,
                                           int64_t *read_us) {
  uint64_t count;
  return next_counted(g, id, &count) || next_read(g, id, read_us, true, count);
}

static inline bool next_fast(sfc_generator *g, uint64_t *id, int64_t *read_us) {
  /* After a fork, the general path's fork check first; a shared
   * generator's processes are its forks, and need none. */
  if (SFC_UNLIKELY(
          g->fast == SFC_FAST_NONE ||
          (atomic_load_explicit(&g->forks_seen, memory_order_acquire) !=
               atomic_load_explicit(&sfc_fork_generation,
                                    memory_order_relaxed) &&
           !g->shared)))
    return false;
  if (SFC_LIKELY(g->fast == SFC_FAST_WALL))
    return next_read(g, id, read_us, false, 0);
  return next_fast_counted(g, id, read_us);
}

/* IDs issued at a caller's times are not handed over when the value is
 * given back: the wall clock cannot judge them. */
static inline void mark_injected(sfc_generator *g) {
  /* A leased value's fence judges the clock's ticks only; its generator
   * refuses a caller's times (leased_refusal) before this. */
  if (!atomic_load_explicit(&g->injected, memory_order_relaxed))
    atomic_store_explicit(&g->injected, true, memory_order_relaxed);
}

/* The lease's horizon bounds the ticks the clock gives; a caller's own
 * times could fall below the previous holder's. */
static SFC_NOINLINE sfc_status leased_refusal(sfc_error *err) {
  return sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "a generator on a leased node value issues at its own "
                  "clock only: the lease's horizon cannot judge a caller's "
                  "times");
}

sfc_status sfc_next_at(sfc_generator *gen, int64_t now_us, uint64_t *id,
                       int64_t *wait_us, sfc_error *err) {
  if (SFC_UNLIKELY(!gen)) return sfc_generator_check(gen, err);
  if (SFC_UNLIKELY(gen->fence.on)) return leased_refusal(err);
  mark_injected(gen);
  return next_one(gen, now_us, false, id, wait_us, err);
}

/* Out of line, so that the fast path's callers save no registers for it. */
static SFC_NOINLINE sfc_status next_now_general(sfc_generator *gen,
                                                int64_t read_us, uint64_t *id,
                                                int64_t *wait_us,
                                                sfc_error *err) {
  return next_one(gen, read_us, true, id, wait_us, err);
}

sfc_status sfc_next_now(sfc_generator *gen, uint64_t *id, int64_t *wait_us,
                        sfc_error *err) {
  int64_t read_us = 0;
  if (SFC_UNLIKELY(!gen)) return sfc_generator_check(gen, err);
  if (SFC_LIKELY(next_fast(gen, id, &read_us))) return SFC_OK;
  return next_now_general(gen, read_us, id, wait_us, err);
}

static SFC_ALWAYS_INLINE sfc_status next_many(sfc_generator *gen,
                                              int64_t now_us, bool live,
                                              uint64_t *ids, size_t n,
                                              size_t *filled, int64_t *wait_us,
                                              sfc_error *err) {
  size_t done = 0;
  sfc_status st = SFC_OK;
  int64_t wait = 0;
  while (done < n) {
    uint64_t first = 0, count = 0;
    st = take(gen, now_us, live, n - done, &first, &count, &wait, err);
    if (st != SFC_OK) break;
    const uint64_t id0 = first, step = gen->pack.seq_one;
    uint64_t *dst = ids + done;
    for (uint64_t j = 0; j < count; j++)
      dst[j] = id0 + j * step;
    done += count;
  }
  if (filled) *filled = done;
  if (st == SFC_WAIT && wait_us) *wait_us = wait;
  return st;
}

sfc_status sfc_next_ids_at(sfc_generator *gen, int64_t now_us, uint64_t *ids,
                           size_t n, size_t *filled, int64_t *wait_us,
                           sfc_error *err) {
  if (SFC_UNLIKELY(!gen)) {
    if (filled) *filled = 0;
    return sfc_generator_check(gen, err);
  }
  if (SFC_UNLIKELY(gen->fence.on)) {
    if (filled) *filled = 0;
    return leased_refusal(err);
  }
  mark_injected(gen);
  return next_many(gen, now_us, false, ids, n, filled, wait_us, err);
}

sfc_status sfc_next_ids_now(sfc_generator *gen, uint64_t *ids, size_t n,
                            size_t *filled, int64_t *wait_us, sfc_error *err) {
  if (SFC_UNLIKELY(!gen)) {
    if (filled) *filled = 0;
    return sfc_generator_check(gen, err);
  }
  return next_many(gen, 0, true, ids, n, filled, wait_us, err);
}

static SFC_NOINLINE sfc_status next_general(sfc_generator *gen, int64_t read_us,
                                            uint64_t *id, sfc_error *err) {
  for (;;) {
    int64_t wait = 0;
    sfc_status st = next_one(gen, read_us, true, id, &wait, err);
    if (st != SFC_WAIT) return st;
    sfc_pause(wait);
    read_us = 0; /* after a wait, read the clock again */
  }
}

sfc_status sfc_generator_check(const sfc_generator *gen, sfc_error *err) {
  return gen ? SFC_OK : sfc_fail_closed(NULL, err);
}

sfc_status sfc_next(sfc_generator *gen, uint64_t *id, sfc_error *err) {
  int64_t read_us = 0;
  if (SFC_UNLIKELY(!gen)) return sfc_generator_check(gen, err);
  if (SFC_LIKELY(next_fast(gen, id, &read_us))) return SFC_OK;
  return next_general(gen, read_us, id, err);
}

sfc_status sfc_next_ids(sfc_generator *gen, uint64_t *ids, size_t n,
                        size_t *filled, sfc_error *err) {
  if (SFC_UNLIKELY(!gen)) {
    if (filled) *filled = 0;
    return sfc_generator_check(gen, err);
  }
  size_t done = 0;
  sfc_status st = SFC_OK;
  while (done < n) {
    size_t got = 0;
    int64_t wait = 0;
    st = next_many(gen, 0, true, ids + done, n - done, &got, &wait, err);
    done += got;
    if (st == SFC_WAIT) {
      sfc_pause(wait);
      st = SFC_OK;
    } else if (st != SFC_OK) {
      break;
    }
  }
  if (filled) *filled = done;
  return st;
}
