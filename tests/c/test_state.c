/* The state directory: restart after a clock rollback, crash, corrupt and
 * foreign state files, unusable directories. */
#define CHECK_WANT_PROCESS
#include "check.h"

#include <time.h>

static int64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void restart_after_rollback(void) {
  char *dir = check_tmpdir();
  sfc_layout l = check_default_layout();
  sfc_error err;
  sfc_status st;
  uint64_t ids[3000];

  /* A run whose clock was 5 s ahead of the one after the restart. */
  sfc_generator *g =
      check_generator(&l, "worker", 5, dir, SFC_ROLLBACK_ERROR, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  CHECK_STATUS(check_issue_at(g, wall_us() + 5000000, ids, 1000, &err), SFC_OK,
               err);
  sfc_generator_free(g);

  g = check_generator(&l, "worker", 5, dir, SFC_ROLLBACK_ERROR, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  uint64_t id;
  st = sfc_next(g, &id, &err);
  CHECK(st == SFC_CLOCK_MOVED_BACKWARDS && strstr(err.message, "backwards by"),
        "restart behind the mark: %s %s", sfc_status_name(st), err.message);
  sfc_generator_free(g);

  g = check_generator(&l, "worker", 5, dir, SFC_ROLLBACK_CLOCK, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  CHECK_STATUS(sfc_next_ids(g, ids + 1000, 1000, NULL, &err), SFC_OK, err);
  CHECK(check_field(&l, ids[1000], "clock") == 1, "clock after restart %llu",
        (unsigned long long)check_field(&l, ids[1000], "clock"));
  sfc_stats s;
  sfc_generator_stats(g, &s);
  CHECK(sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS) == 1 &&
            sfc_stats_uint(&s, SFC_STAT_ROLLBACKS) == 1,
        "bumps %llu rollbacks %llu",
        (unsigned long long)sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS),
        (unsigned long long)sfc_stats_uint(&s, SFC_STAT_ROLLBACKS));
  sfc_generator_free(g);

  /* The clock table survives: clock 1 continues; clock 0 stays reserved
   * until the clock passes the first run's IDs. */
  g = check_generator(&l, "worker", 5, dir, SFC_ROLLBACK_CLOCK, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  CHECK_STATUS(sfc_next_ids(g, ids + 2000, 1000, NULL, &err), SFC_OK, err);
  CHECK(check_field(&l, ids[2000], "clock") == 1, "clock on a clean restart");
  sfc_generator_stats(g, &s);
  CHECK(sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS) == 0,
        "no bump on a clean restart");
  sfc_generator_free(g);
  size_t dups = check_duplicates(ids, 3000);
  CHECK(dups == 0, "%zu duplicates across restarts", dups);
  check_rmdir(dir);
}

static void crash_restart(void) {
  char *dir = check_tmpdir();
  sfc_layout l =
      check_layout("time:41@1ms,worker:10,seq:12", check_run_epoch());
  enum { N = 20000 };
  uint64_t *ids = malloc(2 * N * sizeof *ids);
  int fds[2];
  if (pipe(fds) != 0) exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    sfc_error err;
    sfc_status st;
    sfc_generator *g =
        check_generator(&l, "worker", 2, dir, SFC_ROLLBACK_WAIT, &st, &err);
    if (!g || sfc_next_ids(g, ids, N, NULL, &err) != SFC_OK) _exit(1);
    ssize_t w = write(fds[1], ids, N * sizeof *ids);
    _exit(w == (ssize_t)(N * sizeof *ids) ? 0 : 1); /* no clean close */
  }
  close(fds[1]);
  size_t got = 0;
  for (ssize_t r;
       (r = read(fds[0], (char *)ids + got, N * sizeof *ids - got)) > 0;)
    got += (size_t)r;
  close(fds[0]);
  CHECK(check_wait(pid) == 0 && got == N * sizeof *ids, "crashing child");
  uint64_t newest = 0;
  for (size_t i = 0; i < N; i++)
    if (ids[i] > newest) newest = ids[i];

  /* The mark was reserved ahead: the restart waits until the clock passes
   * it (rollback=wait, max_wait 1000 ms by default). */
  sfc_error err;
  sfc_status st;
  sfc_generator *g =
      check_generator(&l, "worker", 2, dir, SFC_ROLLBACK_WAIT, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (g) {
    CHECK_STATUS(sfc_next_ids(g, ids + N, N, NULL, &err), SFC_OK, err);
    CHECK(ids[N] > newest, "after a crash, new IDs follow the old");
    sfc_generator_free(g);
  }
  size_t dups = check_duplicates(ids, 2 * N);
  CHECK(dups == 0, "%zu duplicates across a crash", dups);
  free(ids);
  check_rmdir(dir);
}

static void write_file(const char *path, const char *text, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(text, 1, n, f) != n) exit(1);
  fclose(f);
}

static void bad_state(void) {
  char *dir = check_tmpdir();
  sfc_layout l =
      check_layout("time:41@1ms,worker:10,seq:12", check_run_epoch());
  sfc_error err;
  sfc_status st;
  sfc_generator *g =
      check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  uint64_t id;
  sfc_next(g, &id, &err);
  sfc_generator_free(g);

  char path[256], good[8192];
  snprintf(path, sizeof path, "%s/worker-1.state", dir);
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(good, 1, sizeof good, f) : 0;
  if (f) fclose(f);
  CHECK(n > 50, "state file written (%zu bytes)", n);

  struct {
    const char *what;
    size_t len;
    char flip; /* position to change, from the end */
  } cases[] = {{"truncated", n / 2, 0},
               {"empty", 0, 0},
               {"one byte changed", n, 30},
               {"no newline at the end", n - 1, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char copy[8192];
    memcpy(copy, good, n);
    if (cases[i].flip) copy[n - (size_t)cases[i].flip] ^= 1;
    write_file(path, copy, cases[i].len);
    g = check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
    CHECK(!g && st == SFC_STATE_ERROR && strstr(err.message, path), "%s: %s %s",
          cases[i].what, sfc_status_name(st), err.message);
    if (g) sfc_generator_free(g);
  }
  write_file(path,
             "\x7f"
             "ELF\0\0\0",
             7);
  g = check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(!g && st == SFC_STATE_ERROR, "binary file: %s", err.message);

  /* An intact checksum over a line longer than any buffer. */
  char big[4096];
  int len =
      snprintf(big, sizeof big,
               "snowflake-c state 1\nlayout %s\nepoch %lld\n"
               "node %03000d\nmark 1\nclock 0\nlast -1\n",
               "time:41@1ms,worker:10,seq:12", (long long)check_run_epoch(), 7);
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (int i = 0; i < len; i++) {
    h ^= (unsigned char)big[i];
    h *= UINT64_C(0x100000001b3);
  }
  len += snprintf(big + len, sizeof big - (size_t)len, "check %016llx\n",
                  (unsigned long long)h);
  write_file(path, big, (size_t)len);
  g = check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(!g && st == SFC_STATE_ERROR && strstr(err.message, "state_dir"),
        "long node line: %s", err.message);

  /* Another layout's file, intact. */
  write_file(path, good, n);
  sfc_layout other =
      check_layout("time:41@1ms,worker:10,seq:12", 1704067200001);
  g = check_generator(&other, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st,
                      &err);
  CHECK(!g && st == SFC_STATE_ERROR && strstr(err.message, "belongs to"),
        "foreign layout: %s", err.message);
  g = check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(g != NULL, "the intact file still works: %s", err.message);
  sfc_generator_free(g);

  /* Directories that cannot be used. */
  g = check_generator(&l, "worker", 1, path, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(!g && st == SFC_STATE_ERROR, "a file as state_dir: %s", err.message);
  g = check_generator(&l, "worker", 1, "/proc/sfc-no-such-dir",
                      SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(!g && st == SFC_STATE_ERROR, "unwritable state_dir: %s", err.message);
  check_rmdir(dir);
}

int main(void) {
  restart_after_rollback();
  crash_restart();
  bad_state();
  return check_summary();
}
