/* Uniqueness and order with several threads on one generator. */
#include "check.h"

enum { PER_THREAD = 300000, MAX_THREADS = 4 };

typedef struct job {
  sfc_generator *gen;
  uint64_t *ids;
  size_t n;
  int batch; /* 0: sfc_next; k: sfc_next_ids in runs of k */
  int errors, unordered;
} job;

static void *work(void *arg) {
  job *j = arg;
  sfc_error err;
  size_t i = 0;
  while (i < j->n) {
    if (j->batch) {
      size_t want = j->n - i < (size_t)j->batch ? j->n - i : (size_t)j->batch;
      size_t got = 0;
      if (sfc_next_ids(j->gen, j->ids + i, want, &got, &err) != SFC_OK)
        j->errors++;
      i += got;
      if (!got) break;
    } else if (sfc_next(j->gen, &j->ids[i], &err) == SFC_OK) {
      i++;
    } else {
      j->errors++;
      break;
    }
  }
  /* Each thread sees its own IDs strictly increasing (no clock bumps). */
  for (size_t k = 1; k < i; k++)
    j->unordered += j->ids[k] <= j->ids[k - 1];
  j->n = i;
  return NULL;
}

static void run(const char *spec, int threads, int mixed, size_t per) {
  sfc_layout l = check_layout(spec, 1704067200000);
  sfc_node_value node[] = {{"worker", 1, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  sfc_generator *g;
  sfc_error err;
  sfc_status st = sfc_generator_new(&l, &opts, &g, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (st != SFC_OK) return;
  uint64_t *all = malloc(sizeof(uint64_t) * per * (size_t)threads);
  check_thread tid[MAX_THREADS];
  job jobs[MAX_THREADS];
  for (int t = 0; t < threads; t++) {
    jobs[t] =
        (job){g, all + (size_t)t * per, per, mixed && t % 2 ? 1000 : 0, 0, 0};
    check_thread_start(&tid[t], work, &jobs[t]);
  }
  size_t total = 0;
  for (int t = 0; t < threads; t++) {
    check_thread_join(tid[t]);
    CHECK(jobs[t].errors == 0, "%s: thread %d had %d errors", spec, t,
          jobs[t].errors);
    CHECK(jobs[t].unordered == 0, "%s: thread %d: %d IDs out of order", spec, t,
          jobs[t].unordered);
    CHECK(jobs[t].n == per, "%s: thread %d made %zu IDs", spec, t, jobs[t].n);
    total += jobs[t].n;
  }
  sfc_stats s;
  sfc_generator_stats(g, &s);
  CHECK(sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) == total,
        "%s: stats say %" PRIu64 " IDs, made %zu", spec,
        sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED), total);
  size_t dups = check_duplicates(all, (size_t)threads * per);
  CHECK(dups == 0, "%s, %d threads: %zu duplicate IDs", spec, threads, dups);
  free(all);
  sfc_generator_free(g);
}

int main(void) {
  run("time:41@1ms,worker:10,seq:12", 2, 0, PER_THREAD);
  run("time:41@1ms,worker:10,seq:12", 4, 1, PER_THREAD);
  run("time:41@1ms,worker:2,seq:20", 2, 1, PER_THREAD);
  run("time:41@1ms,worker:2,seq:20", 4, 0, PER_THREAD);
  /* seq above the node field, and a tiny sequence: waits all the time */
  run("time:41@1ms,seq:6,worker:16", 2, 1, 20000);
  return check_summary();
}
