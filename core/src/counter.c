/* time_source=counter: the processor's counter as a cheaper tick check.
 * Where the system's clock runs on that counter, a clock reading and the
 * counter read just before it tell until which count the reading's tick is
 * surely still current; until then the hot path reads the counter, about a
 * third of a clock read, and issues in the state word's tick.
 *
 * The deadline falls 1% and 2 us short of the tick's end (NTP slews the
 * clock by at most 0.05% against the counter, the calibration errs by far
 * less, and processors' counters differ by less than a microsecond),
 * and it is only kept for the tick it was made in. What it cannot see: a
 * step of the wall clock, which the next clock reading notices, at most
 * one tick later. */
#include "internal.h"

#include <time.h>

/* Tests point it at a file of their own before the first generator. */
const char *sfc_counter_source;

static struct {
  bool trusted;
  uint64_t base; /* the counter at calibration */
  unsigned shift;
  double per_ns; /* counts per nanosecond */
} cal;
static sfc_once_flag cal_once = SFC_ONCE_INIT;

static int64_t mono_ns(void) {
  struct timespec ts;
  sfc_os_monotonic(&ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef struct sample {
  uint64_t count;
  int64_t ns;
} sample;

/* The counter read on both sides of a monotonic reading: the tightest of a
 * few tries, its middle. */
static sample take_sample(void) {
  sample best = {0, 0};
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 8; i++) {
    const uint64_t a = sfc_cpu_counter();
    const int64_t ns = mono_ns();
    const uint64_t b = sfc_cpu_counter();
    if (b >= a && b - a < best_gap) {
      best_gap = b - a;
      best.count = a + (b - a) / 2;
      best.ns = ns;
    }
  }
  return best;
}

/* Once per process, for the first generator that asks: 2 ms of the
 * monotonic clock against the counter. */
static void calibrate(void) {
  if (!SFC_HAVE_CPU_COUNTER || !sfc_os_counter_trusted(sfc_counter_source))
    return;
  const sample a = take_sample();
  sfc_os_sleep_until(a.ns / 1000 + 2000);
  const sample b = take_sample();
  if (b.count <= a.count || b.ns <= a.ns) return;
  const double per_ns = (double)(b.count - a.count) / (double)(b.ns - a.ns);
  if (!(per_ns > 0.001 && per_ns < 100)) return; /* 1 MHz to 100 GHz */
  /* Deadlines are kept in units of at most a microsecond. */
  unsigned shift = 0;
  while (shift < 20 && (double)(UINT64_C(2) << shift) <= per_ns * 1000)
    shift++;
  cal.base = a.count;
  cal.shift = shift;
  cal.per_ns = per_ns;
  cal.trusted = true;
}

bool sfc_counter_start(sfc_generator *g) {
  sfc_once(&cal_once, calibrate);
  if (!cal.trusted) return false;
  g->counter_base = cal.base;
  g->counter_shift = cal.shift;
  return true;
}

void sfc_counter_arm(sfc_generator *g, uint64_t count, long tv_nsec,
                     int64_t tick) {
  /* The counter must have kept pace with the monotonic clock since the
   * last deadline (a kernel that left it behind, a host that changed its
   * rate): else no deadline now, and the clock is read on every call. Two
   * threads may mix their pairs: that only skips one deadline. */
  const int64_t ns = mono_ns();
  const uint64_t last_count =
      atomic_exchange_explicit(&g->counter_count, count, memory_order_relaxed);
  const int64_t last_ns =
      atomic_exchange_explicit(&g->counter_ns, ns, memory_order_relaxed);
  if (last_ns == 0 || ns <= last_ns || count < last_count) return;
  const double clock_ns = (double)(ns - last_ns);
  const double count_ns = (double)(count - last_count) / cal.per_ns;
  const double gap =
      count_ns > clock_ns ? count_ns - clock_ns : clock_ns - count_ns;
  if (gap > clock_ns * 0.002 + 100000.0) return;
  /* 1% and 2 us short of the tick's end. */
  const double left_ns = (double)(1000000 - tv_nsec % 1000000) * 0.99 - 2000;
  if (left_ns <= 0) return;
  const uint64_t end =
      count - g->counter_base + (uint64_t)(left_ns * cal.per_ns);
  const uint64_t units = end >> g->counter_shift;
  if (count < g->counter_base || units >= SFC_UNTIL_UNITS_MAX) return;
  atomic_store_explicit(&g->until, units << 16 | ((uint64_t)tick & 0xffff),
                        memory_order_relaxed);
}

bool sfc_counter_on(const sfc_generator *g) {
  return g->fast == SFC_FAST_COUNTER;
}
