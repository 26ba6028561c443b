/* Fork: a static node value refuses in the child; a pool value renews. */
#define CHECK_WANT_PROCESS
#include "check.h"

#include <pthread.h>

enum { N = 20000 };

static void static_node_refuses(void) {
  sfc_layout l = check_default_layout();
  sfc_error err;
  sfc_status st;
  sfc_generator *g =
      check_generator(&l, "worker", 9, NULL, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  uint64_t id;
  CHECK_STATUS(sfc_next(g, &id, &err), SFC_OK, err);
  pid_t pid = fork();
  if (pid == 0) {
    uint64_t ids[4];
    size_t filled = 9;
    int ok = sfc_next(g, &id, &err) == SFC_GENERATOR_FORKED &&
             strstr(err.message, "fork") != NULL &&
             sfc_next_ids(g, ids, 4, &filled, &err) == SFC_GENERATOR_FORKED &&
             filled == 0;
    _exit(ok ? 0 : 1);
  }
  CHECK(check_wait(pid) == 0, "child did not get GeneratorForked");
  CHECK_STATUS(sfc_next(g, &id, &err), SFC_OK, err);
  sfc_generator_free(g);
}

static void *hammer(void *arg) {
  sfc_generator *g = arg;
  uint64_t id;
  for (int i = 0; i < 200000; i++)
    sfc_next(g, &id, NULL);
  return NULL;
}

static void pool_renews(void) {
  char *dir = check_tmpdir();
  sfc_layout l = check_default_layout();
  sfc_error err;
  sfc_status st;
  sfc_generator *g =
      check_pool_generator(&l, "worker", dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (!g) return;
  uint64_t *parent = malloc(N * sizeof *parent);
  uint64_t *all = malloc(3 * N * sizeof *all);
  CHECK_STATUS(sfc_next(g, &parent[0], &err), SFC_OK, err);
  CHECK(check_field(&l, parent[0], "worker") == 0, "parent took worker %llu",
        (unsigned long long)check_field(&l, parent[0], "worker"));

  int fds[2];
  if (pipe(fds) != 0) exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    uint64_t *ids = malloc(N * sizeof *ids);
    size_t filled = 0;
    sfc_next_ids(g, ids, N, &filled, &err);
    size_t bytes = filled * sizeof *ids;
    ssize_t w = write(fds[1], ids, bytes);
    sfc_generator_free(g);
    _exit(w == (ssize_t)bytes && filled == N ? 0 : 1);
  }
  close(fds[1]);
  size_t filled = 0;
  CHECK_STATUS(sfc_next_ids(g, parent + 1, N - 1, &filled, &err), SFC_OK, err);
  size_t got = 0;
  uint8_t *dst = (uint8_t *)(all + N);
  for (ssize_t r; (r = read(fds[0], dst + got, N * sizeof *all - got)) > 0;)
    got += (size_t)r;
  close(fds[0]);
  CHECK(check_wait(pid) == 0, "pool child failed");
  CHECK(got == N * sizeof *all, "child sent %zu bytes", got);
  CHECK(check_field(&l, all[N], "worker") == 1, "child took worker %llu",
        (unsigned long long)check_field(&l, all[N], "worker"));
  memcpy(all, parent, N * sizeof *all);

  /* The child released its worker; the parent still holds 0. */
  sfc_generator *g2 =
      check_pool_generator(&l, "worker", dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (g2) {
    sfc_next_ids(g2, all + 2 * N, N, &filled, &err);
    CHECK(check_field(&l, all[2 * N], "worker") == 1,
          "new generator took worker %llu",
          (unsigned long long)check_field(&l, all[2 * N], "worker"));
    sfc_generator_free(g2);
  }
  size_t dups = check_duplicates(all, 3 * N);
  CHECK(dups == 0, "%zu duplicates across parent and children", dups);

  /* Forks while other threads use the generator never deadlock a child. */
  pthread_t t;
  pthread_create(&t, NULL, hammer, g);
  int bad = 0;
  for (int i = 0; i < 20; i++) {
    pid_t p = fork();
    if (p == 0) {
      uint64_t id;
      sfc_error e;
      sfc_status s = sfc_next(g, &id, &e);
      if (s != SFC_OK) fprintf(stderr, "child: %s\n", e.message);
      _exit(s == SFC_OK ? 0 : 1);
    }
    bad += check_wait(p) != 0;
  }
  pthread_join(t, NULL);
  CHECK(bad == 0, "%d forked children failed", bad);
  free(parent);
  free(all);
  sfc_generator_free(g);
  check_rmdir(dir);
}

int main(void) {
  static_node_refuses();
  pool_renews();
  return check_summary();
}
