/* The C benchmark: snowflake-c beside references built in the same run — a
 * classic mutex-based generator, the floor of the design
 * (benchmarks/floor/floor.h: clock read, tick, one compare-and-swap) and a
 * bare clock read + atomic add (no tick at all).
 *
 * Every ID a generator issues in a timed run is kept, as a caller would keep
 * it: stored in a buffer the run then checks for duplicates and order.
 *
 *   bench [--quick] [--reps N] [--ms MS] [--only SCENARIO|encodings]
 *         [--json PATH]
 *
 * Repetitions are interleaved across implementations and medians reported,
 * since the machine is noisy. Then the string forms: format and parse rates
 * of every encoding (base32 and base62 also in the JSON). */
#define _GNU_SOURCE
#include "snowflake_c.h"

#include "../../tests/c/set_options.h"

#include "../floor/floor.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIDE_SPEC "time:41@1ms,seq:22"
#define CLASSIC_SPEC "time:41@1ms,worker:10,seq:12"
#define WIDE_LIMIT (4194304.0 * 1000)
#define CLASSIC_LIMIT (4096.0 * 1000)
#define EPOCH_MS 1704067200000
#define MAX_THREADS 2
#define MAX_REPS 51
/* Ours again, with time_source=counter. */
#define COUNTER_IMPL "snowflake-c (time_source=counter)"
#define FLOOR_IMPL "minimal binding (floor)"
/* The most IDs a thread keeps per run, per ms of the run: 150 M IDs/s. A
 * run whose buffer fills up ends early, its time measured to that point. */
#define KEEP_PER_MS 150000

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- References ------------------------------------------------------ */

static floor_gen ref_floor; /* the wide layout's floor: worker:0 bits */
static volatile uint64_t ref_sink;

static _Atomic uint64_t ref_counter;

static uint64_t ref_clock_add(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((uint64_t)ts.tv_nsec << 20) ^
         atomic_fetch_add_explicit(&ref_counter, 1, memory_order_relaxed);
}

/* The classic design: a mutex around "read the clock, bump the sequence,
 * spin to the next millisecond when it runs out". */
static struct {
  pthread_mutex_t lock;
  int64_t last_ms;
  uint64_t seq;
} classic = {PTHREAD_MUTEX_INITIALIZER, 0, 0};

static uint64_t ref_mutex(void) {
  pthread_mutex_lock(&classic.lock);
  for (;;) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (ms > classic.last_ms) {
      classic.last_ms = ms;
      classic.seq = 0;
      break;
    }
    if (ms == classic.last_ms && classic.seq < (1u << 22) - 1) {
      classic.seq++;
      break;
    }
  }
  uint64_t id = ((uint64_t)(classic.last_ms - EPOCH_MS) << 22) | classic.seq;
  pthread_mutex_unlock(&classic.lock);
  return id;
}

/* ---- The runner ------------------------------------------------------ */

typedef enum { OP_NEXT, OP_BATCH, OP_FLOOR, OP_CLOCK_ADD, OP_MUTEX } op_kind;

typedef struct scenario {
  const char *name, *impl, *layout;
  op_kind op;
  int threads;
  bool classic; /* report the fraction of the layout's limit */
  double limit; /* IDs per second the layout allows, or 0 */
  double ns[MAX_REPS], ids_per_s[MAX_REPS], fraction[MAX_REPS];
  double run[MAX_REPS]; /* 2 threads: IDs one thread issues in a row */
  uint64_t duplicates, unordered;
} scenario;

typedef struct worker {
  scenario *sc;
  sfc_generator *gen;
  uint64_t *ids; /* every ID issued, or NULL for the clock+atomic-add row */
  size_t cap, count;
  int64_t end_ns; /* when the run stopped, or the buffer filled up */
  uint64_t unordered;
  int errors;
} worker;

static _Atomic bool stop;
/* The start line (pthread barriers are missing on macOS): workers count in,
 * then wait for the go. */
static _Atomic int ready;
static _Atomic bool go;

static void *run_worker(void *arg) {
  worker *w = arg;
  enum { CHUNK = 256, BATCH = 1000 };
  uint64_t *ids = w->ids, sink = 0;
  const size_t room = w->cap - w->cap % (4 * BATCH);
  size_t n = 0;
  atomic_fetch_add(&ready, 1);
  while (!atomic_load(&go)) {
  }
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    if (ids && n + 4 * BATCH > room) break; /* kept all it can */
    switch (w->sc->op) {
    case OP_BATCH:
      for (int k = 0; k < 4; k++, n += BATCH)
        if (sfc_next_ids(w->gen, ids + n, BATCH, NULL, NULL) != SFC_OK)
          w->errors++;
      break;
    case OP_NEXT:
      for (int k = 0; k < CHUNK; k++, n++)
        if (sfc_next(w->gen, &ids[n], NULL) != SFC_OK) w->errors++;
      break;
    case OP_FLOOR:
      for (int k = 0; k < CHUNK; k++, n++)
        ids[n] = floor_next(&ref_floor);
      break;
    case OP_MUTEX:
      for (int k = 0; k < CHUNK; k++, n++)
        ids[n] = ref_mutex();
      break;
    case OP_CLOCK_ADD:
      for (int k = 0; k < CHUNK; k++)
        sink ^= ref_clock_add();
      n += CHUNK;
      break;
    }
  }
  w->end_ns = mono_ns();
  ref_sink = sink; /* keeps the references' calls */
  if (ids)
    for (size_t i = 1; i < n; i++)
      w->unordered += ids[i] <= ids[i - 1];
  w->count = n;
  return NULL;
}

/* Duplicates across the threads' runs, each run strictly increasing (the
 * callers check that first): a merge that counts equal neighbours. The merge
 * is the order of issue, so it also tells how many IDs one thread issued in
 * a row before the other took the state (`*run`): a lock lets its holder
 * issue many while the other waits; a compare-and-swap hands over nearly
 * every time. */
static uint64_t merged_duplicates(const worker *w, int threads, double *run) {
  *run = 0;
  if (threads == 1) return 0;
  uint64_t dups = 0, turns = 0;
  size_t i = 0, j = 0;
  int last = -1;
  while (i < w[0].count && j < w[1].count) {
    uint64_t a = w[0].ids[i], b = w[1].ids[j];
    int from = a <= b ? 0 : 1;
    turns += from != last;
    last = from;
    dups += a == b;
    i += a <= b;
    j += b <= a;
  }
  *run = turns ? (double)(i + j) / (double)turns : 0;
  return dups;
}

/* The fraction of the layout's limit the run reached: IDs in the ticks
 * the run spans whole (the first and last are cut by its start and stop)
 * over what those ticks hold. */
static double limit_fraction(const worker *w, int threads, unsigned shift,
                             double limit) {
  uint64_t t0 = UINT64_MAX, t1 = 0;
  for (int t = 0; t < threads; t++) {
    if (!w[t].count) continue;
    uint64_t first = w[t].ids[0] >> shift;
    uint64_t last = w[t].ids[w[t].count - 1] >> shift;
    t0 = first < t0 ? first : t0;
    t1 = last > t1 ? last : t1;
  }
  if (t0 == UINT64_MAX || t1 <= t0 + 1) return 0;
  size_t inner = 0;
  for (int t = 0; t < threads; t++)
    for (size_t i = 0; i < w[t].count; i++) {
      uint64_t tick = w[t].ids[i] >> shift;
      inner += tick > t0 && tick < t1;
    }
  return (double)inner / ((double)(t1 - t0 - 1) * (limit / 1000.0));
}

/* The threads' buffers, faulted in once for every run. */
static uint64_t *kept[MAX_THREADS];
static size_t kept_cap;

static void run_once(scenario *sc, int rep, int duration_ms) {
  sfc_layout layout;
  sfc_error err;
  sfc_generator *gen = NULL;
  if (sc->op == OP_NEXT || sc->op == OP_BATCH) {
    if (sfc_layout_parse(sc->layout, EPOCH_MS, &layout, &err) != SFC_OK) {
      fprintf(stderr, "%s\n", err.message);
      exit(1);
    }
    sfc_node_value node[] = {{"worker", 1, SFC_SOURCE_EXPLICIT}};
    sfc_options opts;
    sfc_options_init(&opts);
    const bool has_node = sfc_layout_field_index(&layout, "worker") >= 0;
    sfc_options_set_nodes(&opts, node, has_node);
    /* The wide layout has no node field: its claim would meet every other
     * generator of the host, and any one alive (a scenario's process still
     * exiting, another program) would refuse it. The run checks its own
     * IDs for duplicates. */
    set_bool(&opts, SFC_OPTION_GUARD, has_node);
    if (strcmp(sc->impl, COUNTER_IMPL) == 0)
      set_time_source(&opts, SFC_TIME_COUNTER);
    if (sfc_generator_new(&layout, &opts, &gen, &err) != SFC_OK) {
      fprintf(stderr, "%s\n", err.message);
      exit(1);
    }
  } else if (sc->op == OP_FLOOR) {
    floor_init(&ref_floor, EPOCH_MS, 0, 22, 0);
  } else if (sc->op == OP_MUTEX) {
    pthread_mutex_lock(&classic.lock);
    classic.last_ms = classic.seq = 0;
    pthread_mutex_unlock(&classic.lock);
  }
  worker w[MAX_THREADS];
  pthread_t tid[MAX_THREADS];
  memset(w, 0, sizeof w);
  atomic_store(&stop, false);
  atomic_store(&ready, 0);
  atomic_store(&go, false);
  for (int t = 0; t < sc->threads; t++) {
    w[t].sc = sc;
    w[t].gen = gen;
    w[t].cap = kept_cap;
    w[t].ids = sc->op == OP_CLOCK_ADD ? NULL : kept[t];
    pthread_create(&tid[t], NULL, run_worker, &w[t]);
  }
  while (atomic_load(&ready) < sc->threads) {
  }
  atomic_store(&go, true);
  int64_t t0 = mono_ns(), end = t0;
  struct timespec nap = {duration_ms / 1000, (duration_ms % 1000) * 1000000L};
  nanosleep(&nap, NULL);
  atomic_store(&stop, true);
  uint64_t total = 0;
  bool ordered = true;
  for (int t = 0; t < sc->threads; t++) {
    pthread_join(tid[t], NULL);
    total += w[t].count;
    end = w[t].end_ns > end ? w[t].end_ns : end;
    sc->unordered += w[t].unordered;
    ordered = ordered && !w[t].unordered;
    if (w[t].errors) {
      fprintf(stderr, "%s: %d errors\n", sc->name, w[t].errors);
      exit(1);
    }
  }
  sc->ns[rep] = (double)(end - t0) / (double)total;
  sc->ids_per_s[rep] = (double)total * 1e9 / (double)(end - t0);
  sc->fraction[rep] = 0;
  sc->run[rep] = 0;
  if (w[0].ids && ordered)
    sc->duplicates += merged_duplicates(w, sc->threads, &sc->run[rep]);
  if (sc->classic)
    sc->fraction[rep] =
        limit_fraction(w, sc->threads, layout.fields[0].shift, sc->limit);
  sfc_generator_free(gen);
}

/* ---- String forms ---------------------------------------------------- */

/* ns per call of sfc_id_format (SFC_FORMAT_FIXED) and sfc_id_parse, each
 * encoding, on IDs of the wide layout: medians of `reps` runs of about
 * `duration_ms` / 4 each, format and parse interleaved. */
static double median(const double *v, int n, double *lo, double *hi);
static volatile uint64_t encoding_sink;

enum { FORMAT, PARSE };
typedef struct encoding_result {
  double ns[2][MAX_REPS]; /* FORMAT, PARSE */
} encoding_result;

/* The encodings whose rates go into the results JSON: the forms a peer in
 * some language also offers (tsid-creator's base32, CosId's base62). */
static const sfc_encoding RESULT_ENCODINGS[] = {SFC_ENCODING_BASE32,
                                                SFC_ENCODING_BASE62};

static void bench_encodings(int reps, int duration_ms,
                            encoding_result out[SFC_ENCODING_COUNT]) {
  enum { RING = 4096 };
  static char text[RING][SFC_ENCODED_MAX];
  static size_t len[RING];
  static uint64_t ids[RING];
  sfc_layout layout;
  sfc_error err;
  sfc_generator *gen = NULL;
  sfc_options opts;
  sfc_options_init(&opts);
  /* IDs to format only, on the wide layout (no node field: see above). */
  set_bool(&opts, SFC_OPTION_GUARD, false);
  if (sfc_layout_parse(WIDE_SPEC, EPOCH_MS, &layout, &err) != SFC_OK ||
      sfc_generator_new(&layout, &opts, &gen, &err) != SFC_OK ||
      sfc_next_ids(gen, ids, RING, NULL, &err) != SFC_OK) {
    fprintf(stderr, "%s\n", err.message);
    exit(1);
  }
  sfc_generator_free(gen);
  printf("\nstring forms: ns per call, medians of %d runs [min-max]\n", reps);
  printf("%-8s %22s %22s\n", "encoding", "format (fixed)", "parse");
  for (int e = 0; e < SFC_ENCODING_COUNT; e++) {
    double(*ns)[MAX_REPS] = out[e].ns;
    uint64_t sink = 0;
    for (size_t i = 0; i < RING; i++)
      len[i] = sfc_id_format(ids[i], (sfc_encoding)e, SFC_FORMAT_FIXED, text[i],
                             SFC_ENCODED_MAX);
    for (int rep = 0; rep < reps; rep++) {
      for (int op = FORMAT; op <= PARSE; op++) {
        int64_t t0 = mono_ns(), end = t0 + (int64_t)duration_ms * 1000000 / 4;
        uint64_t calls = 0;
        do {
          for (size_t i = 0; i < RING; i++) {
            if (op == FORMAT) {
              char buf[SFC_ENCODED_MAX];
              sink += sfc_id_format(ids[i] + calls, (sfc_encoding)e,
                                    SFC_FORMAT_FIXED, buf, sizeof buf);
              sink += (unsigned char)buf[7];
            } else {
              uint64_t id = 0;
              if (sfc_id_parse(text[i], len[i], (sfc_encoding)e, &id, NULL) !=
                      SFC_OK ||
                  id != ids[i]) {
                fprintf(stderr, "bench: %s text %s does not parse back\n",
                        sfc_encoding_name((sfc_encoding)e), text[i]);
                exit(1);
              }
              sink += id;
            }
          }
          calls += RING;
        } while (mono_ns() < end);
        ns[op][rep] = (double)(mono_ns() - t0) / (double)calls;
      }
    }
    double flo, fhi, plo, phi;
    double fm = median(ns[FORMAT], reps, &flo, &fhi);
    double pm = median(ns[PARSE], reps, &plo, &phi);
    encoding_sink = sink; /* keeps the calls from being optimised away */
    printf("%-8s %6.1f [%5.1f-%5.1f] %8s %6.1f [%5.1f-%5.1f]\n",
           sfc_encoding_name((sfc_encoding)e), fm, flo, fhi, "", pm, plo, phi);
  }
}

/* The scenario of that name and implementation (every one is in the
 * table when no --only filter is given). */
static scenario *find(scenario *sc, int count, const char *name,
                      const char *impl) {
  for (int i = 0; i < count; i++)
    if (!strcmp(sc[i].name, name) && !strcmp(sc[i].impl, impl)) return &sc[i];
  fprintf(stderr, "bench: no %s row of %s\n", name, impl);
  exit(1);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n, double *lo, double *hi) {
  double s[MAX_REPS];
  memcpy(s, v, (size_t)n * sizeof *v);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  *lo = s[0];
  *hi = s[n - 1];
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double med(const double *v, int n) {
  double lo, hi;
  return median(v, n, &lo, &hi);
}

/* One row of the results JSON (medians and extremes of the repetitions);
 * `dups` and `frac` are JSON values. */
static void json_row(FILE *f, int index, const char *scenario, const char *impl,
                     const char *layout, int threads, int reps,
                     const double *ns, const double *ids_per_s,
                     const char *dups, const char *frac) {
  double nlo, nhi, nm = median(ns, reps, &nlo, &nhi);
  double rlo, rhi, rm = median(ids_per_s, reps, &rlo, &rhi);
  fprintf(f,
          "%s\n  {\"language\": \"c\", \"scenario\": \"%s\", "
          "\"implementation\": \"%s\", \"version\": \"%s\", "
          "\"layout\": \"%s\", \"threads\": %d, \"reps\": %d, "
          "\"ns_per_id\": {\"median\": %.3f, \"min\": %.3f, \"max\": "
          "%.3f}, \"ids_per_s\": {\"median\": %.0f, \"min\": %.0f, "
          "\"max\": %.0f}, \"duplicates\": %s, \"fraction_of_limit\": %s}",
          index ? "," : "", scenario, impl,
          strncmp(impl, "snowflake-c", 11) ? "ref" : sfc_version_string(),
          layout, threads, reps, nm, nlo, nhi, rm, rlo, rhi, dups, frac);
}

int main(int argc, char **argv) {
  int reps = 7, duration_ms = 300;
  const char *json = NULL, *filter = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) {
      reps = 3;
      duration_ms = 100;
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--ms") && i + 1 < argc) {
      duration_ms = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
      json = argv[++i];
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      filter = argv[++i];
    } else {
      fprintf(stderr, "usage: bench [--quick] [--reps N] [--ms MS] "
                      "[--only SCENARIO|encodings] [--json PATH]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > MAX_REPS || duration_ms < 10) {
    fprintf(stderr, "bench: --reps 1..%d, --ms >= 10\n", MAX_REPS);
    return 2;
  }
  /* clang-format off */
#define S(name, impl, layout, op, threads, classic, limit) \
  {name, impl, layout, op, threads, classic, limit, {0}, {0}, {0}, {0}, 0, 0}
  scenario sc[] = {
    S("next", "snowflake-c", WIDE_SPEC, OP_NEXT, 1, false, WIDE_LIMIT),
    S("next", COUNTER_IMPL, WIDE_SPEC, OP_NEXT, 1, false, WIDE_LIMIT),
    S("next", FLOOR_IMPL, WIDE_SPEC, OP_FLOOR, 1, false, WIDE_LIMIT),
    S("next", "clock+atomic-add", "-", OP_CLOCK_ADD, 1, false, 0),
    S("next", "mutex-classic", WIDE_SPEC, OP_MUTEX, 1, false, WIDE_LIMIT),
    S("next-2-threads", "snowflake-c", WIDE_SPEC, OP_NEXT, 2, false, WIDE_LIMIT),
    S("next-2-threads", COUNTER_IMPL, WIDE_SPEC, OP_NEXT, 2, false, WIDE_LIMIT),
    S("next-2-threads", FLOOR_IMPL, WIDE_SPEC, OP_FLOOR, 2, false, WIDE_LIMIT),
    S("next-2-threads", "clock+atomic-add", "-", OP_CLOCK_ADD, 2, false, 0),
    S("next-2-threads", "mutex-classic", WIDE_SPEC, OP_MUTEX, 2, false, WIDE_LIMIT),
    S("batch-1000", "snowflake-c", WIDE_SPEC, OP_BATCH, 1, false, WIDE_LIMIT),
    S("classic", "snowflake-c", CLASSIC_SPEC, OP_NEXT, 1, true, CLASSIC_LIMIT),
    S("classic", COUNTER_IMPL, CLASSIC_SPEC, OP_NEXT, 1, true, CLASSIC_LIMIT),
    S("classic-2-threads", "snowflake-c", CLASSIC_SPEC, OP_NEXT, 2, true, CLASSIC_LIMIT),
  };
#undef S
  /* clang-format on */
  int count = (int)(sizeof sc / sizeof sc[0]);
  if (filter && strcmp(filter, "encodings") == 0) {
    count = 0;
  } else if (filter) {
    int kept = 0;
    for (int i = 0; i < count; i++)
      if (strcmp(sc[i].name, filter) == 0) sc[kept++] = sc[i];
    if (!kept) {
      fprintf(stderr, "bench: no scenario named %s\n", filter);
      return 2;
    }
    count = kept;
  }
  kept_cap = (size_t)duration_ms * KEEP_PER_MS;
  for (int t = 0; count && t < MAX_THREADS; t++) {
    kept[t] = malloc(kept_cap * sizeof(uint64_t));
    if (!kept[t]) {
      fprintf(stderr, "bench: no memory for %zu IDs\n", kept_cap);
      return 1;
    }
    memset(kept[t], 0, kept_cap * sizeof(uint64_t)); /* fault it in */
  }
  for (int rep = 0; rep < reps; rep++)
    for (int i = 0; i < count; i++)
      run_once(&sc[i], rep, duration_ms);

  printf("snowflake-c %s C benchmark: %d interleaved repetitions of %d ms, "
         "medians [min-max]\n\n",
         sfc_version_string(), reps, duration_ms);
  if (count)
    printf("%-18s %-33s %-29s %3s %22s %14s %9s %5s %7s\n", "scenario",
           "implementation", "layout", "thr", "ns/ID [min-max]", "IDs/s",
           "of limit", "dups", "in row");
  for (int i = 0; i < count; i++) {
    double lo, hi, m = median(sc[i].ns, reps, &lo, &hi);
    char frac[16] = "-", run[16] = "-";
    if (sc[i].classic)
      snprintf(frac, sizeof frac, "%.3f%%", 100 * med(sc[i].fraction, reps));
    if (sc[i].threads > 1 && sc[i].op != OP_CLOCK_ADD)
      snprintf(run, sizeof run, "%.1f", med(sc[i].run, reps));
    printf("%-18s %-33s %-29s %3d %8.2f [%5.2f-%5.2f] %14.0f %9s %5" PRIu64
           " %7s\n",
           sc[i].name, sc[i].impl, sc[i].layout, sc[i].threads, m, lo, hi,
           med(sc[i].ids_per_s, reps), frac, sc[i].duplicates, run);
  }
  if (!filter) {
#define MED(name, impl, field) med(find(sc, count, name, impl)->field, reps)
    double ours1 = MED("next", "snowflake-c", ns),
           add1 = MED("next", "clock+atomic-add", ns),
           floor1 = MED("next", FLOOR_IMPL, ns);
    double ours2 = MED("next-2-threads", "snowflake-c", ns),
           add2 = MED("next-2-threads", "clock+atomic-add", ns);
    double mutex2 = MED("next-2-threads", "mutex-classic", ns);
    double counter1 = MED("next", COUNTER_IMPL, ns),
           counter2 = MED("next-2-threads", COUNTER_IMPL, ns);
    printf("\nratios (medians, same run):\n"
           "  floor / next, 1 thread                      %.3f  (target >= "
           "0.95)\n"
           "  next / (clock read + atomic add), 1 thread   %.3f  (target <= "
           "1.15)\n"
           "  next, time_source=counter / wall, 1 / 2 threads  %.3f / %.3f\n"
           "  next 2 threads / 1 thread, aggregate ns/ID  %.3f  (target <= "
           "1.6; clock+atomic-add: %.3f)\n"
           "  mutex-classic / snowflake-c, 2 threads      %.2f  (target >= "
           "2.5)\n"
           "  batch IDs/s                                 %.3g  (target >= "
           "1e9)\n"
           "  classic layout, of its limit, 1 / 2 threads %.3f%% / %.3f%%  "
           "(target >= 99.9%%)\n",
           floor1 / ours1, ours1 / add1, counter1 / ours1, counter2 / ours2,
           ours2 / ours1, add2 / add1, mutex2 / ours2,
           MED("batch-1000", "snowflake-c", ids_per_s),
           100 * MED("classic", "snowflake-c", fraction),
           100 * MED("classic-2-threads", "snowflake-c", fraction));
#undef MED
  }
  static encoding_result enc[SFC_ENCODING_COUNT];
  bool encodings = !filter || strcmp(filter, "encodings") == 0;
  if (encodings) bench_encodings(reps, duration_ms, enc);
  uint64_t bad = 0;
  for (int i = 0; i < count; i++)
    bad += sc[i].duplicates + sc[i].unordered;
  if (json) {
    FILE *f = fopen(json, "w");
    if (!f) {
      perror(json);
      return 1;
    }
    fprintf(f, "[");
    int rows = 0;
    for (int i = 0; i < count; i++) {
      char dups[32], frac[32] = "null";
      if (sc[i].op == OP_CLOCK_ADD) /* issues no IDs to keep */
        snprintf(dups, sizeof dups, "null");
      else
        snprintf(dups, sizeof dups, "%" PRIu64, sc[i].duplicates);
      if (sc[i].classic)
        snprintf(frac, sizeof frac, "%.6f", med(sc[i].fraction, reps));
      json_row(f, rows++, sc[i].name, sc[i].impl, sc[i].layout, sc[i].threads,
               reps, sc[i].ns, sc[i].ids_per_s, dups, frac);
    }
    if (encodings) {
      for (size_t k = 0; k < sizeof RESULT_ENCODINGS / sizeof *RESULT_ENCODINGS;
           k++) {
        sfc_encoding e = RESULT_ENCODINGS[k];
        for (int op = FORMAT; op <= PARSE; op++) {
          char name[32];
          double rate[MAX_REPS];
          snprintf(name, sizeof name, "%s-%s",
                   op == FORMAT ? "format" : "parse", sfc_encoding_name(e));
          for (int rep = 0; rep < reps; rep++)
            rate[rep] = 1e9 / enc[e].ns[op][rep];
          /* No IDs are issued here: duplicates do not apply. */
          json_row(f, rows++, name, "snowflake-c", WIDE_SPEC, 1, reps,
                   enc[e].ns[op], rate, "null", "null");
        }
      }
    }
    fprintf(f, "\n]\n");
    fclose(f);
  }
  if (bad) {
    fprintf(stderr, "bench: %" PRIu64 " duplicate or unordered IDs\n", bad);
    return 1;
  }
  return 0;
}
