/* Generator.next_id()'s common case without a call into the core, by the
 * rule the core publishes (sfc_generator_fast_rule): a new millisecond or
 * the next sequence value of the current one, by one compare-and-swap on the
 * core's own state word. Anything else — no rule, a lost compare-and-swap, a
 * tick's sequence used up, the clock behind, the time field's end, a closed
 * generator's poisoned word — is the core's.
 *
 * The rule does not see forks, and a forked child must meet the core's fork
 * check: the process counts its forks (pthread_atfork), and a rule taken
 * before the last fork is not used. POSIX with C11 atomics only; elsewhere
 * every call goes to the core. */
#ifndef SFC_PY_FAST_RULE_H
#define SFC_PY_FAST_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "snowflake_c.h"

#if (defined(__unix__) || defined(__APPLE__)) && !defined(__STDC_NO_ATOMICS__)
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

typedef struct {
  sfc_fast_rule rule;
  unsigned long forks; /* the process's forks when the rule was taken */
  bool held;
} fast_rule;

static _Atomic unsigned long forks_here;
static bool counting_forks;

static void count_fork(void) {
  atomic_fetch_add_explicit(&forks_here, 1, memory_order_relaxed);
}

static void start_counting_forks(void) {
  counting_forks = pthread_atfork(NULL, NULL, count_fork) == 0;
}

/* The generator's rule, if the core publishes one and forks are counted. */
static void fast_rule_take(fast_rule *f, const sfc_generator *gen) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, start_counting_forks);
  f->forks = atomic_load(&forks_here);
  f->held = counting_forks && sfc_generator_fast_rule(gen, &f->rule);
}

/* The next ID by the rule's steps, or false for the core to issue it. */
static inline bool fast_rule_next(const fast_rule *f, uint64_t *id) {
  if (!f->held ||
      atomic_load_explicit(&forks_here, memory_order_relaxed) != f->forks)
    return false;
  const sfc_fast_rule *r = &f->rule;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  const int64_t tick =
      (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - r->epoch_ms;
  _Atomic uint64_t *word = (_Atomic uint64_t *)r->word;
  /* The word first, acquired, then the mark (sfc_fast_rule). */
  uint64_t w = atomic_load_explicit(word, memory_order_acquire);
  const int64_t t = (int64_t)(w >> r->time_shift);
  uint64_t next;
  if (t < tick && tick >= 0 && (uint64_t)tick <= r->time_max)
    next = (w & r->keep_mask) | ((uint64_t)tick << r->time_shift);
  else if (t == tick && (w & r->seq_mask) != r->seq_mask)
    next = w + r->seq_one;
  else
    return false;
  /* Past the mark, the hand-over is written first: the core's to do. */
  if (tick >
      atomic_load_explicit((_Atomic int64_t *)r->mark, memory_order_relaxed))
    return false;
  if (!atomic_compare_exchange_strong_explicit(
          word, &w, next, memory_order_relaxed, memory_order_relaxed))
    return false;
  if (t != tick) /* the last tick is closed: the stats count its IDs */
    atomic_fetch_add_explicit((_Atomic uint64_t *)r->issued_closed,
                              (w & r->seq_mask) / r->seq_one + 1,
                              memory_order_relaxed);
  *id = next;
  return true;
}

#else

typedef struct {
  bool held;
} fast_rule;

static void fast_rule_take(fast_rule *f, const sfc_generator *gen) {
  (void)gen;
  f->held = false;
}

static inline bool fast_rule_next(const fast_rule *f, uint64_t *id) {
  (void)f;
  (void)id;
  return false;
}

#endif
#endif
