/* Many processes on one pool get distinct node values; a full pool and a
 * held value are refused. */
#define CHECK_WANT_PROCESS
#include "check.h"

enum { PROCS = 4, N = 50000 };

/* Each child holds its value until every child of the round has one, so
 * that the values of a round must all differ. */
static int child(const sfc_layout *l, const char *dir, const char *out,
                 int ready, int go) {
  sfc_error err;
  sfc_status st;
  sfc_generator *g =
      check_pool_generator(l, "worker", dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  if (!g) {
    fprintf(stderr, "child: %s\n", err.message);
    return 1;
  }
  char c = 1;
  if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 0) return 1;
  uint64_t *ids = malloc(N * sizeof *ids);
  size_t filled = 0;
  for (size_t i = 0; i < N; i += 500)
    if (sfc_next_ids(g, ids + i, 500, &filled, &err) != SFC_OK) return 1;
  FILE *f = fopen(out, "wb");
  size_t w = f ? fwrite(ids, sizeof *ids, N, f) : 0;
  if (f) fclose(f);
  sfc_generator_free(g);
  free(ids);
  return w == N ? 0 : 1;
}

static void round_of_processes(const sfc_layout *l, const char *dir,
                               uint64_t *all, int round) {
  pid_t pids[PROCS];
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) exit(1);
  for (int p = 0; p < PROCS; p++) {
    char out[256];
    snprintf(out, sizeof out, "%s/ids-%d-%d", dir, round, p);
    pids[p] = fork();
    if (pids[p] == 0) {
      close(go[1]);
      _exit(child(l, dir, out, ready[1], go[0]));
    }
  }
  close(ready[1]);
  close(go[0]);
  char buf[PROCS];
  size_t got = 0;
  for (ssize_t r; got < PROCS && (r = read(ready[0], buf, PROCS - got)) > 0;)
    got += (size_t)r;
  CHECK(got == PROCS, "round %d: %zu of %d processes took a value", round, got,
        PROCS);
  close(go[1]);
  close(ready[0]);
  uint64_t workers = 0;
  for (int p = 0; p < PROCS; p++) {
    CHECK(check_wait(pids[p]) == 0, "round %d: process %d failed", round, p);
    char out[256];
    snprintf(out, sizeof out, "%s/ids-%d-%d", dir, round, p);
    FILE *f = fopen(out, "rb");
    size_t r = f ? fread(all + (size_t)p * N, sizeof *all, N, f) : 0;
    if (f) fclose(f);
    CHECK(r == N, "round %d: process %d wrote %zu IDs", round, p, r);
    workers |= UINT64_C(1) << check_field(l, all[(size_t)p * N], "worker");
  }
  CHECK(__builtin_popcountll(workers) == PROCS,
        "round %d: workers overlap (mask %llx)", round,
        (unsigned long long)workers);
}

int main(void) {
  char *dir = check_tmpdir();
  sfc_layout l = check_layout("time:41@1ms,worker:6,seq:16", check_run_epoch());
  uint64_t *all = malloc(3 * PROCS * N * sizeof *all);
  /* Three rounds: processes exit and new ones take the freed values. */
  for (int round = 0; round < 3; round++)
    round_of_processes(&l, dir, all + (size_t)round * PROCS * N, round);
  size_t dups = check_duplicates(all, 3 * PROCS * N);
  CHECK(dups == 0, "%zu duplicate IDs across %d processes", dups, 3 * PROCS);
  free(all);
  check_rmdir(dir);
  dir = check_tmpdir();

  /* A pool of two values: the third taker is refused, as is a held value. */
  sfc_layout small =
      check_layout("time:41@1ms,worker:1,seq:12", check_run_epoch());
  sfc_error err;
  sfc_status st;
  sfc_generator *a = check_pool_generator(&small, "worker", dir,
                                          SFC_ROLLBACK_DEFAULT, &st, &err);
  sfc_generator *b = check_pool_generator(&small, "worker", dir,
                                          SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(a && b, "two takers of a two-value pool");
  sfc_generator *c = check_pool_generator(&small, "worker", dir,
                                          SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(c == NULL && st == SFC_WORKER_UNAVAILABLE && strstr(err.message, dir),
        "third taker: %s %s", sfc_status_name(st), err.message);
  c = check_generator(&small, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st,
                      &err);
  CHECK(c == NULL && st == SFC_WORKER_UNAVAILABLE &&
            strstr(err.message, "held"),
        "held value: %s %s", sfc_status_name(st), err.message);
  sfc_generator_free(a);
  c = check_generator(&small, "worker", 0, dir, SFC_ROLLBACK_DEFAULT, &st,
                      &err);
  CHECK(c != NULL, "a released value is free again: %s", err.message);
  sfc_generator_free(b);
  sfc_generator_free(c);

  /* auto needs a state directory. */
  c = check_pool_generator(&small, "worker", NULL, SFC_ROLLBACK_DEFAULT, &st,
                           &err);
  CHECK(c == NULL && st == SFC_INVALID_ARGUMENT, "auto without state_dir");
  check_rmdir(dir);
  return check_summary();
}
