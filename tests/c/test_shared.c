/* A generator in shared memory: forked processes draw from one node value,
 * every ID unique; one claim for the group; the creator alone lets go; a
 * process that dies inside the slow path does not leave its lock held. */
#define CHECK_WANT_PROCESS
#include "check.h"

#include <sys/mman.h>
#include <sys/stat.h>

extern void (*sfc_test_hook)(const char *point);

enum { PROCESSES = 4, PER_PROCESS = 100000, BATCH = 64 };

static size_t round64(size_t n) {
  return (n + 63) / 64 * 64;
}

/* Anonymous shared memory, as a pre-forking server maps it: the generator
 * first, then room for `ids` IDs. */
static void *map_shared(size_t ids, uint64_t **out) {
  size_t gen = round64(sfc_generator_shared_size());
  void *mem = mmap(NULL, gen + ids * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  if (out) *out = (uint64_t *)((char *)mem + gen);
  return mem;
}

static void unmap(void *mem, size_t ids) {
  munmap(mem, round64(sfc_generator_shared_size()) + ids * sizeof(uint64_t));
}

static sfc_options node_options(sfc_node_value *node, const char *state_dir) {
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_text(&opts, SFC_OPTION_STATE_DIR, state_dir);
  return opts;
}

/* A shared generator in `mem`, or NULL (and a failed check). */
static sfc_generator *new_shared(void *mem, const sfc_layout *l,
                                 const sfc_options *opts, sfc_error *err) {
  sfc_generator *g = NULL;
  CHECK_STATUS(sfc_generator_new_shared(mem, sfc_generator_shared_size(), l,
                                        opts, &g, err),
               SFC_OK, *err);
  return g;
}

static void refuses_bad_memory(void) {
  sfc_layout l = check_default_layout();
  sfc_node_value node[] = {{"worker", 70, SFC_SOURCE_EXPLICIT}};
  sfc_options opts = node_options(node, NULL);
  void *mem = map_shared(0, NULL);
  sfc_generator *g = NULL;
  sfc_error err;
  size_t size = sfc_generator_shared_size();
  CHECK_STATUS(
      sfc_generator_new_shared((char *)mem + 8, size, &l, &opts, &g, &err),
      SFC_INVALID_ARGUMENT, err);
  CHECK(strstr(err.message, "aligned") != NULL, "%s", err.message);
  CHECK_STATUS(sfc_generator_new_shared(mem, size - 1, &l, &opts, &g, &err),
               SFC_INVALID_ARGUMENT, err);
  CHECK(strstr(err.message, "bytes") != NULL, "%s", err.message);
  CHECK(g == NULL, "a generator was made");

  char *dir = check_tmpdir();
  sfc_node_value pool[] = {{"worker", 0, SFC_SOURCE_POOL}};
  opts = node_options(pool, dir);
  CHECK_STATUS(sfc_generator_new_shared(mem, size, &l, &opts, &g, &err),
               SFC_INVALID_ARGUMENT, err);
  CHECK(strstr(err.message, "shared") != NULL, "%s", err.message);
  check_rmdir(dir);
  unmap(mem, 0);
}

/* Each child fills its part of `ids`, half one by one, half in batches. */
static void issue(sfc_generator *g, uint64_t *ids) {
  sfc_error err;
  for (size_t i = 0; i < PER_PROCESS / 2; i++)
    if (sfc_next(g, &ids[i], &err) != SFC_OK) {
      fprintf(stderr, "child %ld: %s\n", (long)getpid(), err.message);
      _exit(1);
    }
  for (size_t i = PER_PROCESS / 2; i < PER_PROCESS; i += BATCH) {
    size_t n = PER_PROCESS - i < BATCH ? PER_PROCESS - i : BATCH, filled = 0;
    if (sfc_next_ids(g, &ids[i], n, &filled, &err) != SFC_OK || filled != n) {
      fprintf(stderr, "child %ld: %s\n", (long)getpid(), err.message);
      _exit(1);
    }
  }
}

/* The mark in the state file of worker=`worker`, or -1. */
static long long state_mark(const char *dir, int64_t worker) {
  char path[256], line[128];
  snprintf(path, sizeof path, "%s/worker-%lld.state", dir, (long long)worker);
  FILE *f = fopen(path, "r");
  long long mark = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "mark %lld", &mark) == 1) break;
  if (f) fclose(f);
  return mark;
}

/* PROCESSES forked processes and the creator at once, on one generator. */
static void forks_share_one_value(const char *state_dir, int64_t worker) {
  const size_t total = (PROCESSES + 1) * (size_t)PER_PROCESS;
  uint64_t *ids;
  void *mem = map_shared(total, &ids);
  sfc_layout l = check_default_layout();
  sfc_node_value node[] = {{"worker", worker, SFC_SOURCE_EXPLICIT}};
  sfc_options opts = node_options(node, state_dir);
  set_ms(&opts, SFC_OPTION_STATE_RESERVE,
         5); /* many marks written by the processes */
  sfc_error err;
  sfc_generator *g = new_shared(mem, &l, &opts, &err);
  if (!g) return;
  CHECK(check_warning(g, "Unguarded") == NULL, "unguarded: %s",
        check_warning(g, "Unguarded"));

  pid_t pids[PROCESSES];
  for (int p = 0; p < PROCESSES; p++) {
    pids[p] = fork();
    if (pids[p] == 0) {
      issue(g, ids + (size_t)(p + 1) * PER_PROCESS);
      sfc_generator_free(g); /* not the creator: nothing happens */
      _exit(0);
    }
  }
  issue(g, ids);
  for (int p = 0; p < PROCESSES; p++)
    CHECK(check_wait(pids[p]) == 0, "process %d failed", p);

  /* The group's claim holds while the creator has not let go, though a
   * child "freed" it: another generator of the value is refused. */
  sfc_generator *other = NULL;
  sfc_options plain = node_options(node, NULL);
  CHECK_STATUS(sfc_generator_new(&l, &plain, &other, &err),
               SFC_WORKER_UNAVAILABLE, err);
  sfc_generator_free(other);

  uint64_t after;
  CHECK_STATUS(sfc_next(g, &after, &err), SFC_OK, err);
  sfc_stats stats;
  sfc_generator_stats(g, &stats);
  CHECK(sfc_stats_uint(&stats, SFC_STAT_IDS_ISSUED) == total + 1,
        "stats count %llu of %zu",
        (unsigned long long)sfc_stats_uint(&stats, SFC_STAT_IDS_ISSUED),
        total + 1);

  uint64_t last = 0;
  size_t wrong_node = 0;
  for (size_t i = 0; i < total; i++) {
    if (ids[i] > last) last = ids[i];
    wrong_node += check_field(&l, ids[i], "worker") != (uint64_t)worker;
  }
  CHECK(after > last, "an ID after all the processes' is not above them");
  CHECK(wrong_node == 0, "%zu IDs with another node value", wrong_node);
  CHECK(check_duplicates(ids, total) == 0, "duplicate IDs across processes");
  if (state_dir) { /* what a crash now would leave: the mark covers all */
    long long mark = state_mark(state_dir, worker);
    CHECK(mark >= (long long)check_field(&l, after, "time"),
          "the state file's mark %lld is behind the last ID", mark);
  }
  sfc_generator_free(g);

  /* Let go: the next holder starts after everything the group issued. */
  set_ms(&opts, SFC_OPTION_STATE_RESERVE, INT64_MIN);
  CHECK_STATUS(sfc_generator_new(&l, &opts, &other, &err), SFC_OK, err);
  if (other) {
    uint64_t next;
    CHECK_STATUS(sfc_next(other, &next, &err), SFC_OK, err);
    CHECK(next > after, "the next holder started behind the group");
    sfc_generator_free(other);
  }
  unmap(mem, total);
}

static void die(const char *point) {
  if (strcmp(point, "bump_clock: written, word not switched") == 0) _exit(7);
}

/* A process killed inside the slow path, holding its lock: the others take
 * the lock over and go on, with no ID repeated. */
static void survives_a_death_in_the_slow_path(void) {
  const int64_t epoch = check_run_epoch();
  sfc_layout l = check_layout("time:41@1ms,clock:3,worker:7,seq:12", epoch);
  void *mem = map_shared(0, NULL);
  sfc_node_value node[] = {{"worker", 72, SFC_SOURCE_EXPLICIT}};
  sfc_options opts = node_options(node, NULL);
  set_rollback(&opts, SFC_ROLLBACK_CLOCK);
  sfc_error err;
  sfc_generator *g = new_shared(mem, &l, &opts, &err);
  if (!g) return;
  const int64_t t = (epoch + 100000) * 1000;
  uint64_t first, back;
  int64_t wait = 0;
  CHECK_STATUS(sfc_next_at(g, t, &first, &wait, &err), SFC_OK, err);
  pid_t pid = fork();
  if (pid == 0) {
    sfc_test_hook = die;
    sfc_next_at(g, t - 10000000, &back, &wait, &err); /* dies in the bump */
    _exit(0);
  }
  CHECK(check_wait(pid) == 7, "the child did not die in the slow path");
  CHECK_STATUS(sfc_next_at(g, t - 10000000, &back, &wait, &err), SFC_OK, err);
  CHECK(back != first &&
            check_field(&l, back, "clock") != check_field(&l, first, "clock"),
        "the clock value did not move on after the rollback");
  sfc_stats stats;
  sfc_generator_stats(g, &stats);
  CHECK(sfc_stats_uint(&stats, SFC_STAT_CLOCK_BUMPS) == 1, "%llu clock bumps",
        (unsigned long long)sfc_stats_uint(&stats, SFC_STAT_CLOCK_BUMPS));
  sfc_generator_free(g);
  unmap(mem, 0);
}

#if defined(__linux__)
extern bool sfc_claim_by_file;

/* The lock-file claim of macOS, run here: a forked process of a shared
 * generator closes its copies of the claim file and removes nothing, so
 * that the value stays refused to others while the creator holds it. */
static void file_claim_outlives_forks(void) {
  sfc_claim_by_file = true;
  void *mem = map_shared(0, NULL);
  sfc_layout l = check_default_layout();
  sfc_node_value node[] = {{"worker", 75, SFC_SOURCE_EXPLICIT}};
  sfc_options opts = node_options(node, NULL);
  sfc_error err;
  sfc_generator *g = new_shared(mem, &l, &opts, &err);
  if (g) {
    pid_t child = fork();
    if (child == 0) {
      uint64_t id;
      sfc_error e;
      _exit(sfc_next(g, &id, &e) == SFC_OK ? 0 : 1);
    }
    CHECK(check_wait(child) == 0, "the forked process issues from it");
    sfc_stats s;
    sfc_generator_stats(g, &s);
    const char *where = strstr(sfc_stats_text(&s, SFC_STAT_GUARD), "/dev/shm/");
    struct stat there;
    CHECK(where && stat(where, &there) == 0,
          "a forked process leaves the claim file: %s",
          sfc_stats_text(&s, SFC_STAT_GUARD));
    sfc_layout other_epoch =
        check_layout("time:41@1ms,clock:3,worker:7,seq:12", l.epoch_ms + 1);
    sfc_generator *c = NULL;
    sfc_status st = sfc_generator_new(&other_epoch, &opts, &c, &err);
    CHECK(st == SFC_WORKER_UNAVAILABLE,
          "refused while the shared generator holds the value after a "
          "fork: %s",
          st == SFC_OK ? "taken" : err.message);
    sfc_generator_free(c);
    sfc_generator_free(g);
  }
  unmap(mem, 0);
  sfc_claim_by_file = false;
}
#endif

int main(void) {
  refuses_bad_memory();
#if defined(__linux__)
  file_claim_outlives_forks();
#endif
  forks_share_one_value(NULL, 71);
  char *dir = check_tmpdir();
  forks_share_one_value(dir, 73);
  check_rmdir(dir);
  survives_a_death_in_the_slow_path();
  return check_summary();
}
