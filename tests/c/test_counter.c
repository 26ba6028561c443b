/* time_source=counter: the counter's trust, and the bound it must keep —
 * every ID's time within the ticks of the wall clock read just before and
 * just after the call, never behind — on threads that share a generator
 * and threads moved from one processor to another between calls. */
#include "check.h"

#include <errno.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern const char *sfc_counter_source; /* counter.c */
extern bool sfc_counter_on(const sfc_generator *g);

#define SPEC "time:41@1ms,worker:4,seq:18"
/* IDs per thread: a count, not a time, so that a slow machine checks as
 * much as a fast one. Two threads' worth spans at least 4 ticks of 2^18. */
enum { TIME_SHIFT = 22, PER_THREAD = 500000, MOVE_EVERY = 2000 };

static int64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static sfc_generator *counter_generator(const char *spec, unsigned worker) {
  sfc_layout l = check_layout(spec, check_run_epoch());
  sfc_node_value node[] = {{"worker", worker, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, "counter", 7, 0};
  sfc_error err;
  CHECK_STATUS(sfc_options_set(&opts, "time_source", 11, &v, &err), SFC_OK,
               err);
  sfc_generator *g = NULL;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &g, &err), SFC_OK, err);
  return g;
}

/* What the system names as its clock's source, as the core must read it. */
static bool system_trusts_counter(void) {
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#if defined(__x86_64__)
  const char *want = "tsc\n";
#else
  const char *want = "arch_sys_counter\n";
#endif
  char buf[64] = {0};
  FILE *f = fopen(
      "/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  return n == strlen(want) && memcmp(buf, want, n) == 0;
#else
  return false;
#endif
}

/* ---- the bound ---------------------------------------------------- */

typedef struct job {
  sfc_generator *g;
  int64_t epoch_ms;
  bool migrate; /* move to the other processor every few calls */
  uint64_t *ids;
  size_t n;
  size_t behind, ahead, unordered, errors, moves;
  int64_t worst_behind_us;
} job;

static void *work(void *arg) {
  job *j = arg;
  sfc_error err;
  int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), cpu = 0;
  while (j->n < PER_THREAD) {
    if (j->migrate && cpus > 1 && j->n % MOVE_EVERY == 0) {
#if defined(__linux__) /* elsewhere the scheduler moves threads alone */
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      if (sched_setaffinity(0, sizeof set, &set) == 0) j->moves++;
#endif
      cpu = (cpu + 1) % cpus;
    }
    const int64_t before = wall_us();
    uint64_t id;
    if (sfc_next(j->g, &id, &err) != SFC_OK) {
      j->errors++;
      break;
    }
    const int64_t after = wall_us();
    const int64_t t = (int64_t)(id >> TIME_SHIFT);
    const int64_t lo = before / 1000 - j->epoch_ms,
                  hi = after / 1000 - j->epoch_ms;
    if (t < lo) {
      j->behind++;
      const int64_t by = before - (t + j->epoch_ms + 1) * 1000;
      if (by > j->worst_behind_us) j->worst_behind_us = by;
    }
    j->ahead += t > hi;
    j->unordered += j->n && id <= j->ids[j->n - 1];
    j->ids[j->n++] = id;
  }
  return NULL;
}

static void bound(const char *what, unsigned worker, bool migrate) {
  sfc_generator *g = counter_generator(SPEC, worker);
  if (!g) return;
  enum { THREADS = 2 };
  job jobs[THREADS];
  check_thread tid[THREADS];
  for (int i = 0; i < THREADS; i++) {
    jobs[i] = (job){.g = g, .epoch_ms = check_run_epoch(), .migrate = migrate};
    jobs[i].ids = malloc(sizeof(uint64_t) * PER_THREAD);
    check_thread_start(&tid[i], work, &jobs[i]);
  }
  size_t total = 0, behind = 0, ahead = 0, unordered = 0, errors = 0, moves = 0;
  int64_t worst = 0;
  for (int i = 0; i < THREADS; i++) {
    check_thread_join(tid[i]);
    total += jobs[i].n;
    behind += jobs[i].behind;
    ahead += jobs[i].ahead;
    unordered += jobs[i].unordered;
    errors += jobs[i].errors;
    moves += jobs[i].moves;
    if (jobs[i].worst_behind_us > worst) worst = jobs[i].worst_behind_us;
  }
  uint64_t *all = malloc(sizeof(uint64_t) * total);
  size_t k = 0;
  for (int i = 0; i < THREADS; i++) {
    memcpy(all + k, jobs[i].ids, sizeof(uint64_t) * jobs[i].n);
    k += jobs[i].n;
    free(jobs[i].ids);
  }
  CHECK(total == THREADS * PER_THREAD, "%s: %zu IDs of %d", what, total,
        THREADS * PER_THREAD);
  CHECK(errors == 0, "%s: %zu errors", what, errors);
  CHECK(behind == 0,
        "%s: %zu of %zu IDs behind the clock read before the call (the "
        "worst by %lld us)",
        what, behind, total, (long long)worst);
  CHECK(ahead == 0, "%s: %zu of %zu IDs ahead of the clock read after it", what,
        ahead, total);
  CHECK(unordered == 0, "%s: %zu IDs not above the thread's last", what,
        unordered);
  CHECK(check_duplicates(all, total) == 0, "%s: duplicates", what);
#if defined(__linux__)
  if (migrate && sysconf(_SC_NPROCESSORS_ONLN) > 1)
    CHECK(moves == THREADS * PER_THREAD / MOVE_EVERY,
          "%s: %zu moves between processors of %d", what, moves,
          THREADS * PER_THREAD / MOVE_EVERY);
#endif
  sfc_stats s;
  sfc_generator_stats(g, &s);
  CHECK(sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) == total,
        "%s: stats count %llu of %zu", what,
        (unsigned long long)sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED), total);
  printf("%s: %zu IDs, %zu moves, none behind or ahead\n", what, total, moves);
  free(all);
  sfc_generator_free(g);
}

/* ---- trust ---------------------------------------------------------- */

/* In a child (the calibration is once per process): a generator over a
 * stand-in for the system's file; its exit code says whether the counter
 * was taken, 2 on a failure. */
static int counter_taken_with(const char *source) {
  pid_t pid = fork();
  if (pid == 0) {
    sfc_counter_source = source;
    sfc_generator *g = counter_generator(SPEC, 9);
    if (!g) _exit(2);
    uint64_t last = 0, id;
    sfc_error err;
    for (int i = 0; i < 100000; i++) {
      if (sfc_next(g, &id, &err) != SFC_OK || id <= last) _exit(2);
      last = id;
    }
    const bool on = sfc_counter_on(g);
    sfc_generator_free(g);
    _exit(on ? 1 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

static void trust(void) {
  char dir[512], path[600], link_path[600], fifo[600];
  check_temp_folder("counter", dir, sizeof dir);
#if defined(__x86_64__)
  const char *own = "tsc\n";
#else
  const char *own = "arch_sys_counter\n";
#endif
  snprintf(path, sizeof path, "%s/own", dir);
  FILE *f = fopen(path, "w");
  fputs(own, f);
  fclose(f);
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
  CHECK(counter_taken_with(path) == 1,
        "the counter not taken where the clock runs on it");
#else
  CHECK(counter_taken_with(path) == 0, "a counter taken on this system");
#endif
  snprintf(path, sizeof path, "%s/other", dir);
  f = fopen(path, "w");
  fputs("hpet\n", f);
  fclose(f);
  CHECK(counter_taken_with(path) == 0,
        "the counter taken where the clock runs on another source");
  snprintf(link_path, sizeof link_path, "%s/link", dir);
  snprintf(path, sizeof path, "%s/own", dir);
  CHECK(symlink(path, link_path) == 0, "symlink: %s", strerror(errno));
  CHECK(counter_taken_with(link_path) == 0,
        "the counter taken through a symbolic link");
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
  CHECK(counter_taken_with(fifo) == 0, "the counter taken from a FIFO");
  snprintf(path, sizeof path, "%s/missing", dir);
  CHECK(counter_taken_with(path) == 0, "the counter taken with no file");
  unlink(fifo);
  unlink(link_path);
  snprintf(path, sizeof path, "%s/own", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/other", dir);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  trust();
  sfc_generator *g = counter_generator(SPEC, 3);
  const bool trusted = system_trusts_counter();
  CHECK(g && sfc_counter_on(g) == trusted, "counter in use: %d, trusted: %d",
        g ? sfc_counter_on(g) : -1, trusted);
  /* A binding's rule reads the clock: not published where the counter runs,
   * published where the generator reads the wall clock after all. */
  sfc_fast_rule rule;
  CHECK(g && sfc_generator_fast_rule(g, &rule) == !trusted,
        "the fast rule published: %d, the counter trusted: %d",
        g ? sfc_generator_fast_rule(g, &rule) : -1, trusted);
  /* Other ticks than 1 ms: the wall clock on every call. */
  sfc_generator *coarse = counter_generator("time:41@10ms,worker:4,seq:18", 4);
  CHECK(coarse && !sfc_counter_on(coarse), "the counter used on 10 ms ticks");
  sfc_generator_free(coarse);
  sfc_generator_free(g);
  printf("the system's clock %s on the processor's counter\n",
         trusted ? "runs" : "does not run");
  bound("2 threads", 5, false);
  bound("2 threads moved between processors", 6, true);
  return check_summary();
}
