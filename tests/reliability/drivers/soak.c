/* A soak: 2 threads generating through the deterministic entry with a clock
 * of their own (the wall clock plus an offset), which the main thread steps
 * back by 1–40 ms every 50 ms, beside a thread that decodes, encodes,
 * formats and parses without pause. Asserts: zero duplicates, each thread's
 * IDs strictly increasing (rollback=borrow never reuses a tick), no error,
 * and no growth of the resident set between the first second and the end.
 *
 * Usage: soak SECONDS [sanitized]
 * ("sanitized": under a sanitizer, whose shadow memory grows with use, the
 * resident set is reported but not checked) */
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static sfc_generator *gen;
static sfc_layout layout;
static _Atomic int64_t offset_us;
static atomic_int stop;

typedef struct gen_thread {
  uint64_t *v;
  size_t n, cap;
  uint64_t errors, ahead;
  char error[SFC_MESSAGE_MAX + 40];
} gen_thread;

static void *generate(void *arg) {
  gen_thread *t = arg;
  while (!atomic_load(&stop) && t->n + 64 <= t->cap) {
    int64_t now = wall_us() + atomic_load(&offset_us);
    size_t filled = 0;
    int64_t wait = 0;
    sfc_error err;
    sfc_status st =
        sfc_next_ids_at(gen, now, t->v + t->n, 64, &filled, &wait, &err);
    /* Issued ahead of this thread's clock: riding a step back. */
    if (filled) {
      sfc_parts p;
      sfc_decode(&layout, t->v[t->n + filled - 1], &p, NULL);
      if (p.time_us >= now + layout.unit_us - now % layout.unit_us) t->ahead++;
    }
    t->n += filled;
    if (st == SFC_WAIT) {
      sfc_pause(wait < 2000 ? wait : 2000);
    } else if (st != SFC_OK) {
      t->errors++;
      snprintf(t->error, sizeof t->error, "%s: %s", sfc_status_name(st),
               err.message);
      sfc_pause(1000);
    } else {
      sfc_pause(100);
    }
  }
  return NULL;
}

static uint64_t decodes, decode_failures;

static void *decode_load(void *arg) {
  (void)arg;
  uint64_t x = 88172645463325252u;
  static const char *const specs[] = {
      "time:41@1ms,clock:3,worker:7,seq:12", "time:39@10ms,seq:8,machine:16",
      "time:41@1ms,worker:11,seq:12", "time:41@1ms,seq:12,worker", "bogus"};
  while (!atomic_load(&stop)) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t id = x >> 1;
    sfc_parts p;
    sfc_error err;
    char json[SFC_JSON_MAX];
    if (sfc_decode(&layout, id, &p, &err) == SFC_OK) {
      sfc_parts_json(&layout, &p, json, sizeof json);
      uint64_t back = 0;
      if (sfc_encode(&layout, &p, &back, &err) != SFC_OK || back != id)
        decode_failures++;
      char text[24];
      size_t n = (size_t)snprintf(text, sizeof text, "%" PRIu64, id);
      uint64_t parsed = 0;
      if (sfc_id_parse(text, n, SFC_ENCODING_DEC, &parsed, &err) != SFC_OK ||
          parsed != id)
        decode_failures++;
    } else {
      decode_failures++;
    }
    sfc_layout l;
    sfc_layout_parse(specs[x % 5], 1704067200000, &l, &err);
    uint64_t lo, hi;
    sfc_range(&layout, 1704067200000 + (int64_t)(x % 1000000000),
              1704067200000 + (int64_t)(x % 1000000000) + 5000, &lo, &hi, &err);
    sfc_stats s;
    sfc_generator_stats(gen, &s);
    decodes++;
  }
  return NULL;
}

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || atoi(argv[1]) < 2) {
    fprintf(stderr, "usage: soak SECONDS [sanitized] (2 seconds or more)\n");
    return 2;
  }
  const int seconds = atoi(argv[1]);
  sfc_error err;
  row_layout("default", &layout);
  sfc_node_value node[] = {{"worker", 21, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_rollback(&opts, SFC_ROLLBACK_BORROW);
  set_ms(&opts, SFC_OPTION_MAX_DRIFT, 100);
  set_ms(&opts, SFC_OPTION_MAX_WAIT, 200);
  must(sfc_generator_new(&layout, &opts, &gen, &err), &err, "generator");

  /* Room for every ID, touched now, so the resident set measures the
   * library, not the test's own storage. The rate is bounded by the pause
   * after each batch of 64. */
  gen_thread t[2];
  memset(t, 0, sizeof t);
  for (int i = 0; i < 2; i++) {
    t[i].cap = (size_t)seconds * 400000;
    t[i].v = malloc(t[i].cap * sizeof(uint64_t));
    if (!t[i].v) return 99;
    memset(t[i].v, 0xff, t[i].cap * sizeof(uint64_t));
  }
  pthread_t th[3];
  for (int i = 0; i < 2; i++)
    pthread_create(&th[i], NULL, generate, &t[i]);
  pthread_create(&th[2], NULL, decode_load, NULL);

  result r = {.ok = true};
  uint64_t x = 0x9E3779B97F4A7C15u;
  long rss_start = 0;
  const int64_t start = mono_us();
  for (int64_t k = 1;; k++) {
    usleep(50000);
    int64_t elapsed = mono_us() - start;
    if (elapsed >= (int64_t)seconds * 1000000) break;
    if (!rss_start && elapsed >= 1000000) rss_start = rss_kb();
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    atomic_fetch_sub(&offset_us, (int64_t)(1000 + x % 39000));
    r.faults++;
  }
  const long rss_end = rss_kb();
  atomic_store(&stop, 1);
  for (int i = 0; i < 3; i++)
    pthread_join(th[i], NULL);

  sfc_stats s;
  sfc_generator_stats(gen, &s);
  print_stats("soak", gen);
  ids all = {0};
  uint64_t ahead = 0;
  int full = 0;
  for (int i = 0; i < 2; i++) {
    if (t[i].errors) {
      r.unexpected += t[i].errors;
      result_fail(&r, "thread %d: %" PRIu64 " errors, e.g. %s", i, t[i].errors,
                  t[i].error);
    }
    if (!ids_increasing(t[i].v, t[i].n))
      result_fail(&r, "thread %d: IDs not increasing", i);
    ahead += t[i].ahead;
    full += t[i].n + 64 > t[i].cap;
    ids_append(&all, t[i].v, t[i].n);
    free(t[i].v);
  }
  r.ids = all.n;
  r.dups = ids_dups(all.v, all.n);
  if (r.dups) result_fail(&r, "%" PRIu64 " duplicate IDs", r.dups);
  if (sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) != all.n)
    result_fail(&r, "ids_issued=%" PRIu64 ", not %zu",
                sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED), all.n);
  if (ahead == 0) result_fail(&r, "no ID ahead of the clock: no step seen");
  if (decode_failures)
    result_fail(&r, "%" PRIu64 " decode round trips failed", decode_failures);
  const bool check_rss = argc < 3 || strcmp(argv[2], "sanitized") != 0;
  if (check_rss && rss_end - rss_start > 1024)
    result_fail(&r, "resident set grew %ld kB (%ld to %ld)",
                rss_end - rss_start, rss_start, rss_end);
  if (r.ok)
    snprintf(r.note, sizeof r.note,
             "%d s%s; %" PRIu64 " decodes; %" PRIu64
             " batches ahead of the clock; RSS %ld to %ld kB",
             seconds, full ? " (ID storage filled early)" : "", decodes, ahead,
             rss_start, rss_end);
  result_print(&r);
  free(all.v);
  sfc_generator_free(gen);
  return r.ok ? 0 : 1;
}
