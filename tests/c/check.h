/* A minimal checking harness: CHECK counts, main() ends with
 * check_summary(), which prints "N passed, N failed" and gives the exit code.
 */
#ifndef SFC_TEST_CHECK_H
#define SFC_TEST_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "set_options.h"
#include "snowflake_c.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (cond) {                                                                \
      check_passed++;                                                          \
    } else {                                                                   \
      check_failed++;                                                          \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);        \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

/* `got` is evaluated once: it is often the call under test. */
#define CHECK_STATUS(got, want, err)                                           \
  do {                                                                         \
    sfc_status check_got_ = (got);                                             \
    CHECK(check_got_ == (want), "status %s, wanted %s (%s)",                   \
          sfc_status_name(check_got_), sfc_status_name(want),                  \
          check_got_ == SFC_OK ? "" : (err).message);                          \
  } while (0)

static inline int check_summary(void) {
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}

/* The text of g's warning of `kind` ("Unguarded", "LayoutEnding"), or
 * NULL. */
static inline const char *check_warning(const sfc_generator *g,
                                        const char *kind) {
  const char *text, *k;
  for (size_t i = 0; (k = sfc_generator_warning_at(g, i, &text)); i++)
    if (strcmp(k, kind) == 0) return text;
  return NULL;
}

/* Whether `older` was taken over by a newer generator of `node` ("worker=3")
 * in this process: its calls fail with the closed error that says so. */
static inline bool check_taken_over(sfc_generator *older, const char *node) {
  uint64_t id;
  sfc_error err;
  char want[200];
  snprintf(want, sizeof want,
           "the generator is closed: a newer generator of this process took "
           "node value %s (a cell or a reload run again); use that one",
           node);
  return older && sfc_next(older, &id, &err) == SFC_INVALID_ARGUMENT &&
         strcmp(err.message, want) == 0;
}

static int check_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorts ids in place and returns how many are repeated. */
static inline size_t check_duplicates(uint64_t *ids, size_t n) {
  qsort(ids, n, sizeof *ids, check_cmp_u64);
  size_t dups = 0;
  for (size_t i = 1; i < n; i++)
    dups += ids[i] == ids[i - 1];
  return dups;
}

/* A thread for the tests, on every platform (no pthreads on Windows). */
#if defined(_WIN32)
#include <windows.h>
typedef HANDLE check_thread;
typedef struct check_start {
  void *(*fn)(void *);
  void *arg;
} check_start;
static DWORD WINAPI check_run(LPVOID p) {
  check_start *s = p;
  s->fn(s->arg);
  free(s);
  return 0;
}
static inline void check_thread_start(check_thread *t, void *(*fn)(void *),
                                      void *arg) {
  check_start *s = malloc(sizeof *s);
  if (!s) exit(99);
  s->fn = fn;
  s->arg = arg;
  *t = CreateThread(NULL, 0, check_run, s, 0, NULL);
  if (!*t) exit(99);
}
static inline void check_thread_join(check_thread t) {
  WaitForSingleObject(t, INFINITE);
  CloseHandle(t);
}
static inline void check_sleep_us(int64_t us) {
  Sleep((DWORD)(us / 1000));
}
#else
#include <pthread.h>
#include <time.h>
typedef pthread_t check_thread;
static inline void check_thread_start(check_thread *t, void *(*fn)(void *),
                                      void *arg) {
  if (pthread_create(t, NULL, fn, arg) != 0) exit(99);
}
static inline void check_thread_join(check_thread t) {
  pthread_join(t, NULL);
}
static inline void check_sleep_us(int64_t us) {
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}
#endif

static inline sfc_layout check_layout(const char *spec, int64_t epoch_ms) {
  sfc_layout l;
  sfc_error err;
  if (sfc_layout_parse(spec, epoch_ms, &l, &err) != SFC_OK) {
    fprintf(stderr, "layout %s: %s\n", spec, err.message);
    exit(1);
  }
  return l;
}

#if !defined(_WIN32)
#include <unistd.h> /* mkdtemp, on macOS */
#endif
#include <time.h>

/* An epoch of this run's own: 2024-01-01 plus up to a day. A generator
 * that leaves IDs ahead of the clock hands them over, host-wide, to the
 * next holder of its ID space and node bits; a test that does so keeps its
 * ID spaces to itself, so that nothing else on the machine, nor the next
 * test, starts behind them. */
static inline int64_t check_run_epoch(void) {
  static int64_t epoch;
  if (!epoch) {
#if defined(_WIN32)
    uint64_t pid = (uint64_t)GetCurrentProcessId();
#else
    uint64_t pid = (uint64_t)getpid();
#endif
    epoch = 1704067200000 +
            (int64_t)((pid * 2654435761u + (uint64_t)time(NULL)) % 86400000);
  }
  return epoch;
}

/* The default preset's layout, at the run's own epoch. */
static inline sfc_layout check_default_layout(void) {
  return check_layout("time:41@1ms,clock:3,worker:7,seq:12", check_run_epoch());
}

/* A new folder of this run under the temporary folder, on every platform:
 * "<tmp>/sfc-<what>-<unique>" in buf. */
static inline void check_temp_folder(const char *what, char *buf, size_t cap) {
#if defined(_WIN32)
  static unsigned made;
  char tmp[MAX_PATH];
  GetTempPathA(sizeof tmp, tmp);
  snprintf(buf, cap, "%ssfc-%s-%lu-%llu-%u", tmp, what,
           (unsigned long)GetCurrentProcessId(),
           (unsigned long long)GetTickCount64(), made++);
  if (!CreateDirectoryA(buf, NULL)) {
#else
  snprintf(buf, cap, "/tmp/sfc-%s-XXXXXX", what);
  if (!mkdtemp(buf)) {
#endif
    fprintf(stderr, "cannot create a folder %s\n", buf);
    exit(1);
  }
}

/* Issues n IDs at an injected clock reading, riding out the waits (for
 * the keeper's reservation, for the next tick) for real. */
static inline sfc_status check_issue_at(sfc_generator *g, int64_t now_us,
                                        uint64_t *ids, size_t n,
                                        sfc_error *err) {
  size_t done = 0;
  while (done < n) {
    size_t got = 0;
    int64_t wait = 0;
    sfc_status st =
        sfc_next_ids_at(g, now_us, ids + done, n - done, &got, &wait, err);
    done += got;
    if (st == SFC_WAIT)
      sfc_pause(wait < 100000 ? wait : 100000);
    else if (st != SFC_OK)
      return st;
  }
  return SFC_OK;
}

static inline sfc_generator *
check_generator_from(const sfc_layout *l, const char *field, int64_t value,
                     sfc_node_source source, const char *state_dir,
                     sfc_rollback rollback, sfc_status *status,
                     sfc_error *err) {
  sfc_node_value node[] = {{field, value, source}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, field ? 1 : 0);
  set_text(&opts, SFC_OPTION_STATE_DIR, state_dir);
  set_rollback(&opts, rollback);
  sfc_generator *g = NULL;
  *status = sfc_generator_new(l, &opts, &g, err);
  return *status == SFC_OK ? g : NULL;
}

/* A generator with `field` = value (none when field is NULL). */
static inline sfc_generator *
check_generator(const sfc_layout *l, const char *field, int64_t value,
                const char *state_dir, sfc_rollback rollback,
                sfc_status *status, sfc_error *err) {
  return check_generator_from(l, field, value, SFC_SOURCE_EXPLICIT, state_dir,
                              rollback, status, err);
}

/* A generator taking `field` from the pool in state_dir ("auto"). */
static inline sfc_generator *
check_pool_generator(const sfc_layout *l, const char *field,
                     const char *state_dir, sfc_rollback rollback,
                     sfc_status *status, sfc_error *err) {
  return check_generator_from(l, field, 0, SFC_SOURCE_POOL, state_dir, rollback,
                              status, err);
}

#endif

#ifdef CHECK_WANT_PROCESS
#include <sys/wait.h>
#include <unistd.h>

/* A fresh state directory under /tmp, removed by check_rmdir. */
static inline char *check_tmpdir(void) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/sfc-test-XXXXXX");
  if (!mkdtemp(path)) {
    perror("mkdtemp");
    exit(1);
  }
  return strdup(path);
}

static inline void check_rmdir(char *path) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", path);
  free(path);
}

/* Waits for a child and returns its exit code (-1 if it did not exit). */
static inline int check_wait(pid_t pid) {
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

static inline uint64_t check_field(const sfc_layout *l, uint64_t id,
                                   const char *name) {
  sfc_parts p;
  sfc_decode(l, id, &p, NULL);
  return p.values[sfc_layout_field_index(l, name)];
}
#endif
