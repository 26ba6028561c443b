/* The generator: creation, the lock-free hot path, batches, counters. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The strategy in force and its waits, from the options' rows and the
 * strategies' rows. */
static sfc_status resolve_strategy(sfc_generator *g, const sfc_layout *layout,
                                   const sfc_options *opts, sfc_error *err) {
  const bool pooled = opts->state_dir && g->node.auto_slot >= 0;
  sfc_status st =
      sfc_rollback_resolve(opts->rollback, layout, pooled, &g->rollback, err);
  if (st != SFC_OK) return st;
  const int64_t wait_ms =
      sfc_option_ms(opts, SFC_OPTION_MAX_WAIT, opts->rollback);
  const int64_t drift_ms =
      sfc_option_ms(opts, SFC_OPTION_MAX_DRIFT, opts->rollback);
  g->max_wait_us = wait_ms * 1000;
  g->drift_ticks = drift_ms * 1000 / layout->unit_us;
  g->opts.max_wait_ms = wait_ms;
  g->opts.max_drift_ms = drift_ms;
  return SFC_OK;
}

/* What the stats and the warning say of the guard. */
static void describe_guard(sfc_generator *g) {
  if (g->guarded) {
    snprintf(g->guard, sizeof g->guard, "held: %s", g->claim.where);
    g->warning[0] = '\0';
    return;
  }
  char node[SFC_NODE_TEXT_MAX];
  sfc_node_text(&g->layout, &g->node, node, sizeof node);
  snprintf(g->guard, sizeof g->guard, "off");
  const char *no_claim = sfc_os_no_claim();
  if (no_claim) {
    snprintf(g->warning, sizeof g->warning,
             "node value %.160s is not guarded: %s", node, no_claim);
    return;
  }
  snprintf(g->warning, sizeof g->warning,
           "node value %.160s is not guarded (the guard is off): nothing "
           "stops another live generator of this host from taking it and "
           "issuing the same IDs",
           node);
}

/* Lets go of a generator whose creation failed. */
static sfc_status discard(sfc_generator *g, sfc_status st) {
  sfc_keeper_stop(g, false);
  sfc_mutex_lock(&g->lock);
  if (g->has_state)
    sfc_state_close(g);
  else
    sfc_guard_release(g);
  sfc_mutex_unlock(&g->lock);
  sfc_fork_unregister(g);
  sfc_mutex_destroy(&g->lock);
  if (!g->shared) sfc_os_aligned_free(g);
  return st;
}

/* The value's host-wide claim (unless the guard is off) and, with a
 * state_dir, its lock and state files; what they hand over in *saved. */
static sfc_status take_node_value(sfc_generator *g, const sfc_options *opts,
                                  sfc_saved *saved, sfc_error *err) {
  if (g->has_state) return sfc_state_open(g, opts, saved, err);
  bool held;
  sfc_holder who;
  sfc_status st =
      sfc_guard_take(g, &g->claim, sfc_node_bits(&g->layout, &g->node), saved,
                     &held, &who, err);
  if (st == SFC_OK && held) st = sfc_claim_refuse(&g->claim, g, &who, err);
  return st;
}

/* A holder that may have issued up to its mark and ended without giving
 * the value back (a crash, a kill, a pipe closed under it): its mark is at
 * most a reserve ahead, which the start waits out rather than meet it as a
 * rollback. A mark further ahead (a step of the clock) is the strategy's. */
static void wait_out_unclean(const sfc_generator *g, const sfc_saved *saved) {
  if (!saved->unclean) return;
  const int64_t bound = saved->last[saved->clock];
  const int64_t limit_us = (g->handover_reserve + 2) * g->unit_us + 2000;
  const int64_t give_up = sfc_monotonic_us() + limit_us;
  for (;;) {
    const int64_t left_us =
        g->epoch_us + (bound + 1) * g->unit_us - sfc_generator_now_us(g);
    if (left_us <= 0 || left_us > limit_us || sfc_monotonic_us() >= give_up)
      return;
    sfc_pause(left_us);
  }
}

static sfc_status check_arguments(const sfc_layout *layout,
                                  const sfc_options **opts,
                                  sfc_options *defaults, sfc_generator **out,
                                  sfc_error *err) {
  if (!layout || !out)
    return sfc_fail(err, SFC_INVALID_ARGUMENT, "layout and out are required");
  if (!*opts) {
    sfc_options_init(defaults);
    *opts = defaults;
  }
  return sfc_options_check(*opts, err);
}

/* Fills a zeroed generator whose lock is made: its node value taken, its
 * state loaded. */
static sfc_status start(sfc_generator *g, const sfc_layout *layout,
                        const sfc_options *opts, sfc_error *err) {
  g->layout = *layout;
  g->opts = *opts;
  g->opts.node = NULL;
  g->opts.node_count = 0;
  g->opts.state_dir = NULL;
  g->state.lock_fd = SFC_NO_FD;
  g->state.folder.fd = SFC_NO_FD;
  sfc_claim_init(&g->claim);
  g->guarded = !opts->guard_off && !sfc_os_no_claim();
  g->has_state = opts->state_dir != NULL;
  sfc_status st = sfc_node_resolve(layout, opts, &g->node, err);
  if (st == SFC_OK) st = resolve_strategy(g, layout, opts, err);
  if (st == SFC_OK && g->shared && g->node.auto_slot >= 0)
    st = sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "node value 'auto' takes one value per process, but a "
                  "shared generator gives its processes one value: give it "
                  "a fixed value");
  if (st == SFC_OK && !g->has_state && g->node.auto_slot >= 0)
    st = sfc_fail(err, SFC_INVALID_ARGUMENT,
                  "node value 'auto' needs a state_dir: the pool of values "
                  "is kept as lock files there");
  if (st != SFC_OK) return st;
  for (unsigned i = 0; i < g->node.count; i++)
    g->node_names[i] = g->layout.fields[g->node.field[i]].name;

  sfc_word_pack(layout, &g->pack);
  g->epoch_us = layout->epoch_ms * 1000;
  g->unit_us = layout->unit_us;
  g->random_start = opts->random_start != 0;
  if (!sfc_os_random(&g->seed, sizeof g->seed))
    g->seed =
        sfc_splitmix64((uint64_t)sfc_monotonic_us() ^ (uint64_t)sfc_os_pid());
  g->time_source = opts->time_source;
  g->fast = SFC_FAST_NONE;
  if (g->time_source != SFC_TIME_MONOTONIC && g->unit_us == 1000 &&
      !g->random_start)
    g->fast = g->time_source == SFC_TIME_COUNTER && sfc_counter_start(g)
                  ? SFC_FAST_COUNTER
                  : SFC_FAST_WALL;
  g->mono_offset_us = sfc_wall_us() - sfc_monotonic_us();
  g->pid = sfc_os_pid();
  g->creator_token = g->shared ? sfc_os_process_token(g->pid) : 0;
  /* A crash costs a successor at most this wait: 16 ms of ticks. */
  g->handover_reserve = 16000 / g->unit_us;
  atomic_store(&g->state_mark, INT64_MAX);
  g->handover_mark = INT64_MAX;
  sfc_mark_update(g);
  atomic_store(&g->forks_seen, atomic_load(&sfc_fork_generation));

  /* Under the lock the fork handlers take: a fork meanwhile finds every
   * descriptor it must drop in the generator. */
  sfc_saved saved;
  sfc_saved_clear(&saved);
  sfc_mutex_lock(&g->lock);
  st = take_node_value(g, opts, &saved, err);
  sfc_mutex_unlock(&g->lock);
  if (st != SFC_OK) return st;
  describe_guard(g);
  sfc_word_set_node(g);
  sfc_saved_normalize(&saved);
  wait_out_unclean(g, &saved);
  sfc_word_load(g, &saved);
  sfc_mutex_lock(&g->lock);
  st = sfc_guard_start(g, err);
  sfc_mutex_unlock(&g->lock);
  if (st != SFC_OK) return st;
  g->started = true;
  return SFC_OK;
}

sfc_status sfc_generator_new(const sfc_layout *layout, const sfc_options *opts,
                             sfc_generator **out, sfc_error *err) {
  sfc_options defaults;
  sfc_status st = check_arguments(layout, &opts, &defaults, out, err);
  if (st != SFC_OK) return st;
  sfc_generator *g = sfc_os_aligned_alloc(64, sizeof *g);
  if (!g)
    return sfc_fail(err, SFC_OUT_OF_MEMORY,
                    "out of memory: a generator needs %zu bytes", sizeof *g);
  memset(g, 0, sizeof *g);
  sfc_mutex_init(&g->lock);
  /* Registered before it holds anything: a fork at any moment of its life
   * drops in the child what it holds then (fork.c). */
  sfc_fork_register(g);
  st = start(g, layout, opts, err);
  if (st == SFC_OK && g->has_state) st = sfc_keeper_start(g, err);
  if (st != SFC_OK) return discard(g, st);
  *out = g;
  return SFC_OK;
}

size_t sfc_generator_shared_size(void) {
  return sizeof(sfc_generator);
}

/* No keeper thread (a host's processes are forked from the creator, and a
 * thread does not survive a fork): the process that reaches the mark moves
 * it (keeper.c). Registered for fork handling only so that its forks hold
 * none of the descriptors that hold the claim (fork.c): they share the
 * generator, not the claim. */
sfc_status sfc_generator_new_shared(void *mem, size_t size,
                                    const sfc_layout *layout,
                                    const sfc_options *opts,
                                    sfc_generator **out, sfc_error *err) {
  sfc_options defaults;
  sfc_status st = check_arguments(layout, &opts, &defaults, out, err);
  if (st != SFC_OK) return st;
  if (!mem || size < sizeof(sfc_generator) || (uintptr_t)mem % 64 != 0)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "a shared generator needs %zu bytes of memory aligned to "
                    "64 bytes (sfc_generator_shared_size()); given %zu bytes "
                    "at an address %s aligned",
                    sizeof(sfc_generator), size,
                    mem && (uintptr_t)mem % 64 == 0 ? "so" : "not so");
  sfc_generator *g = mem;
  memset(g, 0, sizeof *g);
  g->shared = true;
  if (!sfc_mutex_init_shared(&g->lock))
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "this system has no lock that processes can share: a "
                    "shared generator is not available here");
  sfc_fork_register(g);
  st = start(g, layout, opts, err);
  if (st != SFC_OK) return discard(g, st);
  *out = g;
  return SFC_OK;
}

/* The poison goes in under the lock that every slow step installing a
 * word holds, after `closed`: a step that takes the lock later, or a call
 * that finds the poison, sees `closed` and answers the closed error. A
 * compare-and-swap that won before the poison is part of the last word;
 * one after it fails. */
void sfc_generator_close(sfc_generator *gen) {
  if (!gen) return;
  const bool creator = gen->pid == sfc_os_pid();
  if (gen->shared && !creator) return; /* the creator lets go, once */
  sfc_mutex_lock(&gen->lock);
  if (sfc_closed(gen)) {
    sfc_mutex_unlock(&gen->lock);
    return;
  }
  atomic_store(&gen->closed, true);
  uint64_t w = atomic_load(&gen->word);
  while (!atomic_compare_exchange_weak(&gen->word, &w,
                                       sfc_word_poison(&gen->pack, w))) {
  }
  gen->last_word = w;
  sfc_mutex_unlock(&gen->lock);
  sfc_keeper_stop(gen, creator);
  /* Let go under the lock the fork handlers take: a fork meanwhile leaves
   * nothing in the child. */
  sfc_mutex_lock(&gen->lock);
  if (gen->has_state)
    sfc_state_close(gen);
  else
    sfc_guard_release(gen);
  sfc_mutex_unlock(&gen->lock);
}

void sfc_generator_free(sfc_generator *gen) {
  if (!gen) return;
  if (gen->shared && gen->pid != sfc_os_pid()) return;
  sfc_generator_close(gen);
  /* Registered until now: a closed generator's calls still take its lock,
   * which a fork must not leave held in the child. */
  sfc_fork_unregister(gen);
  sfc_mutex_destroy(&gen->lock);
  if (!gen->shared) sfc_os_aligned_free(gen);
}

const sfc_layout *sfc_generator_layout(const sfc_generator *gen) {
  return &gen->layout;
}

size_t sfc_generator_memory(const sfc_generator *gen) {
  return gen ? sizeof *gen : 0;
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
  uint64_t w = atomic_load_explicit(&g->word, memory_order_relaxed);
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
        w = atomic_load_explicit(&g->word, memory_order_relaxed);
        continue;
      }
      if (live) now_us = ts_us(&ts);
      sfc_status st = sfc_slow_path(g, now_us, tick, w, &base, wait_us, err);
      if (st == SFC_RETRY) {
        w = atomic_load_explicit(&g->word, memory_order_relaxed);
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
      sfc_status st = sfc_keeper_mark_reached(g, next_t, live, wait_us, err);
      if (st == SFC_RETRY) continue;
      if (st == SFC_WAIT)
        atomic_fetch_add_explicit(&g->waits, 1, memory_order_relaxed);
      return st;
    }
    if (atomic_compare_exchange_weak_explicit(
            &g->word, &w, next, memory_order_relaxed, memory_order_relaxed)) {
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
  const uint64_t until = atomic_load_explicit(&g->until, memory_order_relaxed);
  uint64_t w = atomic_load_explicit(&g->word, memory_order_relaxed);
  *count = sfc_cpu_counter();
  if (((*count - g->counter_base) >> g->counter_shift) >= until >> 16 ||
      (uint16_t)(w >> p->time_shift) != (uint16_t)until ||
      sfc_word_seq(p, w) == p->seq_max)
    return false;
  /* A lost compare-and-swap hands back the word another thread installed:
   * still this tick's, it is tried again, a clock read being dearer. */
  for (int tries = 0; tries < 8; tries++) {
    const uint64_t next = w + p->seq_one;
    if (!within_mark(g, next)) return false;
    if (atomic_compare_exchange_weak_explicit(
            &g->word, &w, next, memory_order_relaxed, memory_order_relaxed)) {
      *id = next;
      return true;
    }
    if ((uint16_t)(w >> p->time_shift) != (uint16_t)until ||
        sfc_word_seq(p, w) == p->seq_max)
      return false;
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
  uint64_t w = atomic_load_explicit(&g->word, memory_order_relaxed);
  const int64_t t = (int64_t)(w >> p->time_shift);
  uint64_t next;
  if (t < tick && tick >= 0 && (uint64_t)tick <= p->time_max)
    next = (w & p->keep_mask) | ((uint64_t)tick << p->time_shift);
  else if (t == tick && sfc_word_seq(p, w) != p->seq_max)
    next = w + p->seq_one;
  else
    goto missed;
  if (!within_mark(g, next) ||
      !atomic_compare_exchange_strong_explicit(
          &g->word, &w, next, memory_order_relaxed, memory_order_relaxed))
    goto missed;
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
  if (!atomic_load_explicit(&g->injected, memory_order_relaxed))
    atomic_store_explicit(&g->injected, true, memory_order_relaxed);
}

sfc_status sfc_next_at(sfc_generator *gen, int64_t now_us, uint64_t *id,
                       int64_t *wait_us, sfc_error *err) {
  if (SFC_UNLIKELY(!gen)) return sfc_generator_check(gen, err);
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
  return gen ? SFC_OK : sfc_fail_closed(err);
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

/* The rule is published where next_fast's predicate holds for good: its
 * per-call checks are then the rule's steps. A state_dir's mark moves and a
 * shared generator lives in another process's memory too: those keep to the
 * core; so does time_source=counter, whose counter check is cheaper than
 * the clock read the rule's first step is. */
bool sfc_generator_fast_rule(const sfc_generator *gen, sfc_fast_rule *out) {
  if (!gen || gen->fast != SFC_FAST_WALL || gen->has_state || gen->shared)
    return false;
  sfc_generator *g = (sfc_generator *)gen;
  const sfc_packing *p = &g->pack;
  out->word = (uint64_t *)&g->word;
  out->issued_closed = (uint64_t *)&g->issued_closed;
  out->epoch_ms = g->layout.epoch_ms;
  out->time_shift = p->time_shift;
  out->time_max = p->time_max;
  out->seq_one = p->seq_one;
  out->seq_mask = p->seq_max << p->seq_shift;
  out->keep_mask = p->keep_mask;
  out->mark = (int64_t *)&g->mark;
  return true;
}

bool sfc_generator_may_block(const sfc_generator *gen) {
  return gen && gen->has_state;
}

void sfc_generator_stats(const sfc_generator *gen, sfc_stats *out) {
  sfc_generator *g = (sfc_generator *)gen;
  memset(out, 0, sizeof *out);
  uint64_t w = atomic_load(&g->word);
  if (sfc_closed(g)) { /* the word is the poison: the last one is kept */
    sfc_mutex_lock(&g->lock);
    w = g->last_word;
    sfc_mutex_unlock(&g->lock);
  }
  uint64_t t = sfc_word_time(&g->pack, w);
  uint64_t in_tick = sfc_word_seq(&g->pack, w) - sfc_seq_start(g, t) + 1;
  out->ids_issued = atomic_load(&g->issued_closed) + in_tick - g->phantom;
  out->waits = atomic_load(&g->waits);
  out->borrowed_ticks = atomic_load(&g->borrowed);
  out->rollbacks = atomic_load(&g->rollbacks);
  out->rollbacks_waited = atomic_load(&g->rollbacks_waited);
  out->rollbacks_refused = atomic_load(&g->rollbacks_refused);
  out->clock_bumps = atomic_load(&g->clock_bumps);
  out->node_switches = atomic_load(&g->node_switches);
  out->last_time_ms = (g->epoch_us + (int64_t)t * g->unit_us) / 1000;
  out->clock = sfc_word_clock(&g->pack, w);
  out->rollback = g->rollback;
  out->max_wait_ms = g->opts.max_wait_ms;
  out->max_drift_ms = g->opts.max_drift_ms;
  out->node_count = g->node.count;
  for (unsigned i = 0; i < g->node.count; i++) {
    out->node_values[i] = g->node.value[i];
    out->node_sources[i] = g->node.source[i];
    out->node_names[i] = g->node_names[i];
  }
  out->guard = g->guard;
}

const char *sfc_generator_warning(const sfc_generator *gen) {
  return gen && gen->warning[0] ? gen->warning : NULL;
}
