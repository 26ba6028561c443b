/* The host-wide guard: a second live generator with the same layout and
 * node values is refused at creation, in this process as in another;
 * anything else (other values, another layout, the guard off, a value given
 * back) starts; a folder the guard cannot use never stops a generator. Runs
 * on every platform, in a guard folder of its own. */
#include "check.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

static char folder[512];

static long own_pid(void) {
#if defined(_WIN32)
  return (long)GetCurrentProcessId();
#else
  return (long)getpid();
#endif
}

static sfc_generator *open_gen(const sfc_layout *l, int64_t worker,
                               const char *guard_dir, int guard_off,
                               sfc_status *st, sfc_error *err) {
  sfc_node_value node[] = {{"worker", worker, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  opts.node = node;
  opts.node_count = 1;
  opts.guard_dir = guard_dir;
  opts.guard_off = guard_off;
  sfc_generator *g = NULL;
  *st = sfc_generator_new(l, &opts, &g, err);
  return *st == SFC_OK ? g : NULL;
}

static const char *guard_of(const sfc_generator *g) {
  sfc_stats s;
  sfc_generator_stats(g, &s);
  return s.guard;
}

static void same_value_refused(void) {
  sfc_layout l = check_layout("time:41@1ms,worker:10,seq:12", 1704067200000);
  sfc_layout other = check_layout("time:41@1ms,worker:10,seq:12", 1);
  sfc_status st;
  sfc_error err;
  sfc_generator *a = open_gen(&l, 3, folder, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (!a) return;
  CHECK(strncmp(guard_of(a), "held: ", 6) == 0 && strstr(guard_of(a), folder),
        "stats say where the guard is held: %s", guard_of(a));

  sfc_generator *b = open_gen(&l, 3, folder, 0, &st, &err);
  char pid[48];
  snprintf(pid, sizeof pid, "live process %ld", own_pid());
  CHECK(!b && st == SFC_WORKER_UNAVAILABLE && strstr(err.message, "worker=3") &&
            strstr(err.message, pid) && strstr(err.message, folder) &&
            strstr(err.message, "guard off"),
        "the same value again: %s %s", sfc_status_name(st), err.message);
  sfc_generator_free(b);

  /* What is not the same value starts. */
  b = open_gen(&l, 4, folder, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_generator_free(b);
  b = open_gen(&other, 3, folder, 0, &st, &err);
  CHECK(b != NULL, "another layout (epoch) with the same value: %s",
        err.message);
  sfc_generator_free(b);
  b = open_gen(&l, 3, folder, 1, &st, &err);
  CHECK(b && strcmp(guard_of(b), "off") == 0,
        "the guard turned off lets a value be shared: %s", err.message);
  sfc_generator_free(b);

  /* Given back: free at once. */
  sfc_generator_free(a);
  a = open_gen(&l, 3, folder, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_generator_free(a);
}

/* A value given back and taken again at once, in this process: the new
 * generator must not repeat the old one's IDs of the same tick (the guard's
 * lock file keeps the last tick until the clock has passed it). */
static void quick_reuse(const char *spec) {
  enum { ROUNDS = 200, N = 100 };
  static uint64_t ids[ROUNDS * N];
  sfc_layout l = check_layout(spec, 1704067200000);
  for (int r = 0; r < ROUNDS; r++) {
    sfc_status st;
    sfc_error err;
    sfc_generator *g = open_gen(&l, 7, folder, 0, &st, &err);
    if (!g || sfc_next_ids(g, ids + r * N, N, NULL, &err) != SFC_OK) {
      CHECK(0, "round %d: %s", r, err.message);
      sfc_generator_free(g);
      return;
    }
    sfc_generator_free(g);
  }
  size_t dups = check_duplicates(ids, ROUNDS * N);
  CHECK(dups == 0, "%s: %zu duplicates across %d quick reuses of one value",
        spec, dups, ROUNDS);
}

static void unusable_folder_still_starts(void) {
  sfc_layout l = check_layout("time:41@1ms,worker:10,seq:12", 1704067200000);
  sfc_status st;
  sfc_error err;
  char path[600];
  /* An empty path is a mistake in the input, not a folder in trouble. */
  sfc_generator *empty = open_gen(&l, 5, "", 0, &st, &err);
  CHECK(!empty && st == SFC_INVALID_ARGUMENT && strstr(err.message, "empty"),
        "an empty guard_dir: %s %s", sfc_status_name(st), err.message);
  sfc_generator_free(empty);
  snprintf(path, sizeof path, "%s/a-file", folder);
  FILE *f = fopen(path, "wb");
  if (!f || fclose(f) != 0) exit(1);
  sfc_generator *g = open_gen(&l, 5, path, 0, &st, &err);
  CHECK(g && strncmp(guard_of(g), "unavailable: ", 13) == 0,
        "a file as the guard folder: the generator starts and says why: %s %s",
        g ? guard_of(g) : "", g ? "" : err.message);
  uint64_t id;
  if (g) CHECK_STATUS(sfc_next(g, &id, &err), SFC_OK, err);
  sfc_generator_free(g);
  remove(path);
#if !defined(_WIN32)
  /* Open to other users: another user could hold or free values there. */
  snprintf(path, sizeof path, "%s/shared", folder);
  if (mkdir(path, 0700) != 0 || chmod(path, 0770) != 0) exit(1);
  g = open_gen(&l, 5, path, 0, &st, &err);
  CHECK(g && strstr(guard_of(g), "writable by other users"),
        "a group-writable guard folder is not used: %s",
        g ? guard_of(g) : err.message);
  sfc_generator_free(g);
  if (geteuid() == 0) {
    if (chmod(path, 0700) != 0 || chown(path, 65534, 65534) != 0) exit(1);
    g = open_gen(&l, 5, path, 0, &st, &err);
    CHECK(g && strstr(guard_of(g), "belongs to uid 65534"),
          "another user's guard folder is not used: %s",
          g ? guard_of(g) : err.message);
    sfc_generator_free(g);
  }
  rmdir(path);
  snprintf(path, sizeof path, "%s/link", folder);
  if (symlink(folder, path) != 0) exit(1);
  g = open_gen(&l, 5, path, 0, &st, &err);
  CHECK(g && strstr(guard_of(g), "symbolic link"),
        "a symbolic link as the guard folder is not followed: %s",
        g ? guard_of(g) : err.message);
  sfc_generator_free(g);
  remove(path);
#endif
}

/* Lock files of values given back are removed, so that the folder does not
 * fill up. */
static void folder_left_clean(void) {
  /* A lock file kept for its last tick goes with the next holder that
   * leaves after the clock passed it. */
  sfc_layout l = check_layout("time:41@1ms,worker:10,seq:12", 1704067200000);
  sfc_layout other = check_layout("time:41@1ms,worker:10,seq:12", 1);
  sfc_pause(3000);
  sfc_layout coarse =
      check_layout("time:40@10ms,worker:10,seq:12", 1704067200000);
  sfc_pause(20000);
  const sfc_layout *layouts[] = {&l, &l, &l, &other, &coarse};
  const int64_t workers[] = {3, 4, 7, 3, 7};
  for (int i = 0; i < 5; i++) {
    sfc_status st;
    sfc_error err;
    sfc_generator_free(open_gen(layouts[i], workers[i], folder, 0, &st, &err));
  }
  /* Only a folder that is empty again can be removed. */
#if defined(_WIN32)
  CHECK(RemoveDirectoryA(folder), "the guard folder is empty at the end");
#else
  CHECK(rmdir(folder) == 0, "the guard folder is empty at the end");
#endif
}

int main(void) {
  check_temp_folder("guard", folder, sizeof folder);
  same_value_refused();
  /* 1 ms ticks: the generator leaves once the clock passed its last tick;
   * 10 ms ticks: its lock file keeps the last tick for the next holder. */
  quick_reuse("time:41@1ms,worker:10,seq:12");
  quick_reuse("time:40@10ms,worker:10,seq:12");
  unusable_folder_still_starts();
  folder_left_clean();
  return check_summary();
}
