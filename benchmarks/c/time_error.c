/* How far an ID's time is from the wall clock at its call, by time source:
 * each thread reads the wall clock, takes an ID, reads it again, and counts
 * how far the ID's tick ends before the second reading (late) or starts
 * after it (ahead), and the IDs whose tick ended before the call began
 * (behind the clock at the call: what no time source may do). Run by
 * benchmarks/c/time-error.
 *
 *   time_error SOURCE SCENARIO SECONDS
 *
 * SOURCE is wall, monotonic or counter; SCENARIO is idle (two threads
 * taking IDs), load (and a busy thread per CPU beside them) or migrate (the
 * two threads moved to another processor every 2,000 calls). Prints one
 * line: the source, whether the counter is read ("on": Linux trusts it), IDs,
 * late ones, p99, p99.9 and the largest lateness in µs, and ahead ones. */
#define _GNU_SOURCE
#include "snowflake_c.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SPEC "time:41@1ms,worker:4,seq:18"
extern bool sfc_counter_on(const sfc_generator *g); /* counter.c */
enum { TIME_SHIFT = 22, MOVE_EVERY = 2000, BUCKETS = 100001, THREADS = 2 };

static sfc_generator *gen;
static int64_t epoch_ms;
static atomic_bool stop;
static bool migrate;

typedef struct tally {
  uint64_t ids, late, ahead, late_before;
  int64_t worst_late_us, worst_ahead_us;
  uint64_t *late_us; /* histogram by µs; the last bucket holds the rest */
} tally;

static int64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *take(void *arg) {
  tally *t = arg;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (uint64_t i = 0; !atomic_load_explicit(&stop, memory_order_relaxed);
       i++) {
    if (migrate && cpus > 1 && i % MOVE_EVERY == 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET((int)((i / MOVE_EVERY) % (uint64_t)cpus), &set);
      sched_setaffinity(0, sizeof set, &set);
    }
    int64_t before = wall_us();
    uint64_t id = 0;
    if (sfc_next(gen, &id, NULL) != SFC_OK) continue;
    int64_t after = wall_us();
    int64_t start = ((int64_t)(id >> TIME_SHIFT) + epoch_ms) * 1000;
    int64_t late = after - (start + 1000); /* the tick ended before `after` */
    t->ids++;
    if (late > 0) {
      t->late++;
      if (late > t->worst_late_us) t->worst_late_us = late;
      t->late_us[late < BUCKETS - 1 ? late : BUCKETS - 1]++;
    } else {
      t->late_us[0]++;
    }
    if (start > after) { /* began after the call returned: never */
      t->ahead++;
      if (start - after > t->worst_ahead_us) t->worst_ahead_us = start - after;
    }
    if (start + 1000 <= before) t->late_before++; /* ended before the call */
  }
  return NULL;
}

static void *spin(void *arg) {
  volatile uint64_t x = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed))
    x++;
  (void)arg;
  return NULL;
}

static int64_t quantile(const uint64_t *h, uint64_t n, double q) {
  uint64_t want = (uint64_t)((double)n * q), seen = 0;
  for (int64_t i = 0; i < BUCKETS; i++)
    if ((seen += h[i]) > want) return i;
  return BUCKETS - 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: time_error wall|monotonic|counter "
                    "idle|load|migrate SECONDS\n");
    return 2;
  }
  migrate = strcmp(argv[2], "migrate") == 0;
  bool load = strcmp(argv[2], "load") == 0;
  epoch_ms = wall_us() / 1000 - 1000;
  sfc_layout layout;
  sfc_error err;
  sfc_node_value node[] = {{"worker", 1, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  sfc_value source = {SFC_TYPE_TEXT, 0, 0, 0, argv[1], strlen(argv[1]), 0};
  if (sfc_layout_parse(SPEC, epoch_ms, &layout, &err) != SFC_OK ||
      sfc_options_set(&opts, "time_source", 11, &source, &err) != SFC_OK ||
      sfc_generator_new(&layout, &opts, &gen, &err) != SFC_OK) {
    fprintf(stderr, "time_error: %s\n", err.message);
    return 1;
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  pthread_t spinners[64], takers[THREADS];
  int nspin = load ? (int)(cpus < 64 ? cpus : 64) : 0;
  for (int i = 0; i < nspin; i++)
    pthread_create(&spinners[i], 0, spin, 0);
  tally t[THREADS] = {0};
  for (int i = 0; i < THREADS; i++) {
    t[i].late_us = calloc(BUCKETS, sizeof *t[i].late_us);
    pthread_create(&takers[i], 0, take, &t[i]);
  }
  sleep((unsigned)atoi(argv[3]));
  atomic_store(&stop, true);
  for (int i = 0; i < THREADS; i++)
    pthread_join(takers[i], NULL);
  for (int i = 0; i < nspin; i++)
    pthread_join(spinners[i], NULL);
  tally all = {.late_us = t[0].late_us};
  for (int i = 0; i < THREADS; i++) {
    all.ids += t[i].ids, all.late += t[i].late, all.ahead += t[i].ahead;
    all.late_before += t[i].late_before;
    if (t[i].worst_late_us > all.worst_late_us)
      all.worst_late_us = t[i].worst_late_us;
    if (t[i].worst_ahead_us > all.worst_ahead_us)
      all.worst_ahead_us = t[i].worst_ahead_us;
    if (i)
      for (int b = 0; b < BUCKETS; b++)
        all.late_us[b] += t[i].late_us[b];
  }
  printf(
      "%-8s %-3s %-8s %10llu IDs  late %10llu (%.4f%%)  p99 %lld us  p99.9 "
      "%lld us  max %lld us  before the call %llu  ahead %llu (max %lld us)\n",
      argv[1], sfc_counter_on(gen) ? "on" : "off", argv[2],
      (unsigned long long)all.ids, (unsigned long long)all.late,
      all.ids ? 100.0 * (double)all.late / (double)all.ids : 0.0,
      (long long)quantile(all.late_us, all.ids, 0.99),
      (long long)quantile(all.late_us, all.ids, 0.999),
      (long long)all.worst_late_us, (unsigned long long)all.late_before,
      (unsigned long long)all.ahead, (long long)all.worst_ahead_us);
  sfc_generator_free(gen);
  return 0;
}
