/* The floor of the design: the least work one single-ID call can do and
 * still be a Snowflake generator on the wall clock. Read the clock
 * (clock_gettime(CLOCK_REALTIME)), derive the millisecond tick, and
 * compare-and-swap one 64-bit word that is the last ID issued: a later tick
 * starts it again at sequence 0, the same tick adds one to the sequence.
 * Nothing else: no clock-step policy, no drift, no fork or node guard, no
 * error path. Each language's minimal binding (Python, Node.js, Java) wraps
 * floor_next() the way the language's own binding wraps sfc_next(), so that
 * the binding's cost over this floor is what the benchmark shows.
 *
 * The layouts are the benchmarks' wide ones: the sequence in the low bits,
 * the node bits above it, the time above those. */
#ifndef SFC_BENCH_FLOOR_H
#define SFC_BENCH_FLOOR_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

typedef struct {
  _Atomic uint64_t word; /* the last ID issued */
  int64_t epoch_ms;
  unsigned time_shift; /* node bits + sequence bits */
  uint64_t seq_max;    /* the sequence's mask */
  uint64_t keep;       /* the node bits, kept on a new tick */
} floor_gen;

static inline void floor_init(floor_gen *f, int64_t epoch_ms,
                              unsigned node_bits, unsigned seq_bits,
                              uint64_t node) {
  f->epoch_ms = epoch_ms;
  f->time_shift = node_bits + seq_bits;
  f->seq_max = ((uint64_t)1 << seq_bits) - 1;
  f->keep = node << seq_bits;
  atomic_init(&f->word, f->keep);
}

static inline uint64_t floor_tick(const floor_gen *f) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 -
                    f->epoch_ms);
}

static inline uint64_t floor_next(floor_gen *f) {
  uint64_t tick = floor_tick(f);
  uint64_t w = atomic_load_explicit(&f->word, memory_order_relaxed);
  for (;;) {
    uint64_t next;
    if ((w >> f->time_shift) < tick) {
      next = f->keep | tick << f->time_shift;
    } else if ((w & f->seq_max) < f->seq_max) {
      next = w + 1;
    } else { /* the tick's sequence is spent: wait for the next tick */
      tick = floor_tick(f);
      w = atomic_load_explicit(&f->word, memory_order_relaxed);
      continue;
    }
    if (atomic_compare_exchange_weak_explicit(
            &f->word, &w, next, memory_order_relaxed, memory_order_relaxed))
      return next;
  }
}

#endif
