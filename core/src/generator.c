/* The generator: creation (its own memory or memory the host shares),
 * close and free, and its facts: the fast rule, stats, the warning. The
 * IDs are taken in next.c. */
#include "internal.h"

#include <stdarg.h>

#include <stdio.h>
#include <string.h>

/* The strategy in force and its waits, from the options' rows and the
 * strategies' rows. */
static sfc_status resolve_strategy(sfc_generator *g, const sfc_layout *layout,
                                   const sfc_options *opts, sfc_error *err) {
  const sfc_opts o = sfc_opts_of(opts);
  const bool pooled = o.state_dir && g->node.auto_slot >= 0;
  sfc_status st = sfc_rollback_resolve((sfc_rollback)o.rollback, layout, pooled,
                                       &g->rollback, err);
  if (st != SFC_OK) return st;
  const int64_t wait_ms =
      sfc_option_ms(opts, SFC_OPTION_MAX_WAIT, (sfc_rollback)o.rollback);
  const int64_t drift_ms =
      sfc_option_ms(opts, SFC_OPTION_MAX_DRIFT, (sfc_rollback)o.rollback);
  g->max_wait_us = wait_ms * 1000;
  g->drift_ticks = drift_ms * 1000 / layout->unit_us;
  g->opts.max_wait_ms = wait_ms;
  g->opts.max_drift_ms = drift_ms;
  return SFC_OK;
}

/* The kinds of warning, each named once here. */
static const struct {
  const char *name, *doc;
} warning_kinds[] = {
    {"Unguarded", "a generator runs without the guard: nothing stops another "
                  "live generator with the same node value from issuing the "
                  "same IDs"},
    {"LayoutEnding", "a generator's layout runs out of time within ten years "
                     "(or has): past that day it refuses with TimeExhausted"},
};
#define UNGUARDED warning_kinds[0].name
#define LAYOUT_ENDING warning_kinds[1].name

const char *sfc_warning_kind_at(size_t i, const char **doc) {
  if (i >= sizeof warning_kinds / sizeof warning_kinds[0]) return NULL;
  if (doc) *doc = warning_kinds[i].doc;
  return warning_kinds[i].name;
}

static void warn(sfc_generator *g, const char *kind, const char *format, ...)
    SFC_PRINTF(3, 4);

/* One more warning for the user, of `kind`. */
static void warn(sfc_generator *g, const char *kind, const char *format, ...) {
  if (g->warnings == sizeof g->warning / sizeof g->warning[0]) return;
  va_list ap;
  va_start(ap, format);
  vsnprintf(g->warning[g->warnings], sizeof g->warning[0], format, ap);
  va_end(ap);
  g->warning_kind[g->warnings++] = kind;
}

/* What the stats and the warnings say of the guard. */
static void describe_guard(sfc_generator *g) {
  sfc_guard_describe(g);
  if (g->guarded) return;
  char node[SFC_NODE_TEXT_MAX];
  sfc_node_text(&g->layout, &g->node, node, sizeof node);
  const char *no_claim = sfc_os_no_claim();
  if (no_claim) {
    warn(g, UNGUARDED, "node value %.160s is not guarded: %s", node, no_claim);
    return;
  }
  warn(g, UNGUARDED,
       "node value %.160s is not guarded (the guard is off): nothing stops "
       "another live generator of this host from taking it and issuing the "
       "same IDs",
       node);
}

/* A layout whose time runs out within ten years says so when a generator
 * of it starts, not on the day it refuses. */
static void describe_end(sfc_generator *g) {
  const int64_t ten_years_ms = 3652LL * 86400 * 1000;
  sfc_layout_info info;
  sfc_layout_describe(&g->layout, &info);
  const int64_t left_ms = info.time_end_ms - sfc_wall_us() / 1000;
  if (left_ms >= ten_years_ms) return;
  char end[SFC_ISO_MAX];
  sfc_format_iso(info.time_end_ms, end, sizeof end);
  if (left_ms <= 0) {
    warn(g, LAYOUT_ENDING,
         "the layout's time field ran out on %.10s: its generators refuse "
         "with TimeExhausted, and its IDs are for decoding only",
         end);
    return;
  }
  warn(g, LAYOUT_ENDING,
       "the layout's time field runs out on %.10s, in %.1f years: from that "
       "day its generators refuse with TimeExhausted; more time bits, a "
       "coarser tick or a later epoch last longer",
       end, (double)left_ms / (365.25 * 86400 * 1000));
}

/* Lets go of a generator whose creation failed. */
static sfc_status discard(sfc_generator *g, sfc_status st) {
  sfc_generator_let_go(g, false);
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

/* A leased value starts after its previous holder's horizon, under any
 * clock value (it may have issued under each), and issues within its own
 * fence. */
static void merge_lease(sfc_generator *g, const sfc_lease_start *lease,
                        sfc_saved *saved) {
  sfc_saved before;
  sfc_saved_clear(&before);
  for (uint64_t c = 0; c <= g->pack.clock_max && c < SFC_CLOCK_VALUES; c++)
    before.last[c] = lease->after;
  before.mark = lease->after;
  sfc_saved_merge(saved, &before);
  sfc_fence_set(g, lease->horizon, lease->deadline_us);
}

/* Fills a zeroed generator whose lock is made: its node value taken, its
 * state loaded. */
static sfc_status start(sfc_generator *g, const sfc_layout *layout,
                        const sfc_options *opts, const sfc_lease_start *lease,
                        sfc_error *err) {
  const sfc_opts o = sfc_opts_of(opts);
  g->layout = *layout;
  g->opts = o;
  g->opts.node = NULL;
  g->opts.node_count = 0;
  g->opts.state_dir = NULL;
  g->opts.lease_key = NULL;
  g->state.lock_fd = SFC_NO_FD;
  g->state.folder.fd = SFC_NO_FD;
  sfc_claim_init(&g->claim);
  g->guarded = !o.guard_off && !sfc_os_no_claim();
  g->has_state = o.state_dir != NULL;
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
  if (st == SFC_OK && (g->node.lease_slot >= 0) != (lease != NULL))
    st = sfc_fail(err, SFC_INVALID_ARGUMENT,
                  lease ? "a lease needs a node field given as 'lease'"
                        : "node value 'lease' is taken from PostgreSQL: create "
                          "the generator through a lease (sfc_lease_new; the "
                          "CLI's --lease URL or SNOWFLAKE_LEASE_URL)");
  if (st != SFC_OK) return st;
  if (lease) g->node.value[g->node.lease_slot] = lease->value;
  for (unsigned i = 0; i < g->node.count; i++)
    g->node_names[i] = g->layout.fields[g->node.field[i]].name;

  sfc_word_pack(layout, &g->pack);
  g->epoch_us = layout->epoch_ms * 1000;
  g->unit_us = layout->unit_us;
  g->random_start = g->opts.random_start != 0;
  if (!sfc_os_random(&g->seed, sizeof g->seed))
    g->seed =
        sfc_splitmix64((uint64_t)sfc_monotonic_us() ^ (uint64_t)sfc_os_pid());
  g->time_source = (sfc_time_source)g->opts.time_source;
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
  /* Held by an older generator of this process just like this one (a cell
   * or a reload run again): that one is closed, its hand-over written, and
   * this one starts after its last ID (fork.c). Not held by g->lock: the
   * registry's lock comes first. */
  if (st == SFC_WORKER_UNAVAILABLE && sfc_fork_take_over(g, err)) {
    /* The refusal is no answer now: a binding that reads err after a
     * success (SWIG's) must not find it. */
    if (err) *err = (sfc_error){.status = SFC_OK};
    sfc_saved_clear(&saved);
    sfc_mutex_lock(&g->lock);
    st = g->has_state ? sfc_pool_acquire(g, &saved, err)
                      : take_node_value(g, opts, &saved, err);
    sfc_mutex_unlock(&g->lock);
  }
  if (st != SFC_OK) return st;
  if (lease) merge_lease(g, lease, &saved);
  describe_guard(g);
  describe_end(g);
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

/* The claim settled, under the lock that a fork takes (fork.c): a child
 * forked meanwhile drops every name it holds. */
static sfc_status settle(sfc_generator *g, sfc_error *err) {
  sfc_mutex_lock(&g->lock);
  sfc_status st = sfc_guard_settle(g, err);
  sfc_mutex_unlock(&g->lock);
  return st;
}

sfc_status sfc_generator_new_leased(const sfc_layout *layout,
                                    const sfc_options *opts,
                                    const sfc_lease_start *lease,
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
  st = start(g, layout, opts, lease, err);
  if (st == SFC_OK && g->has_state) st = sfc_keeper_start(g, err);
  if (st == SFC_OK) st = settle(g, err);
  if (st != SFC_OK) return discard(g, st);
  /* Whole now: a newer generator of its value may take it over. */
  atomic_store_explicit(&g->ready, true, memory_order_release);
  *out = g;
  return SFC_OK;
}

sfc_status sfc_generator_new(const sfc_layout *layout, const sfc_options *opts,
                             sfc_generator **out, sfc_error *err) {
  return sfc_generator_new_leased(layout, opts, NULL, out, err);
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
  st = start(g, layout, opts, NULL, err);
  if (st == SFC_OK) st = settle(g, err);
  if (st != SFC_OK) return discard(g, st);
  *out = g;
  return SFC_OK;
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

/* The rule is published where next_fast's predicate holds for good: its
 * per-call checks are then the rule's steps. A state_dir's mark moves and a
 * shared generator lives in another process's memory too: those keep to the
 * core; so does time_source=counter, whose counter check is cheaper than
 * the clock read the rule's first step is. */
bool sfc_generator_fast_rule(const sfc_generator *gen, sfc_fast_rule *out) {
  if (!gen || gen->fast != SFC_FAST_WALL || gen->has_state || gen->shared ||
      gen->fence.on)
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
  out->contended_pauses = SFC_CONTENDED_PAUSES;
  return true;
}

bool sfc_generator_may_block(const sfc_generator *gen) {
  return gen && gen->has_state;
}

void sfc_generator_stats(const sfc_generator *gen, sfc_stats *stats) {
  sfc_generator *g = (sfc_generator *)gen;
  sfc_stats_data d, *out = &d;
  memset(stats, 0, sizeof *stats);
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
  out->guard = g->guard[atomic_load(&g->guard_at)];
  memcpy(stats, out, sizeof *out);
}

const char *sfc_generator_warning_at(const sfc_generator *gen, size_t i,
                                     const char **text) {
  if (!gen || i >= gen->warnings) return NULL;
  *text = gen->warning[i];
  return gen->warning_kind[i];
}
