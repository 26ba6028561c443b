/* The state folder as hostile ground: symbolic links and FIFOs planted in
 * it, folders others can write to, a lock file or the whole folder removed
 * under a live holder, and the keeper persisting while a clock bump is half
 * done. */
#define CHECK_WANT_PROCESS
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

/* The core's test hook (internal): called at named points of the slow
 * path. */
extern void (*sfc_test_hook)(const char *point);

static void fail_setup(int line) {
  fprintf(stderr, "%s:%d: setting up: %s\n", __FILE__, line, strerror(errno));
  exit(1);
}

static int64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static sfc_layout preset(void) {
  return check_default_layout();
}

/* dir/name, in one of 16 rotating buffers: keep a result that must live
 * longer in a variable of its own. */
static char *join(const char *dir, const char *name) {
  static char buf[16][512];
  static int k;
  k = (k + 1) % 16;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

static size_t slurp(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, cap, f) : 0;
  if (f) fclose(f);
  return n;
}

/* A generator for worker 1 must be refused with StateError naming `what`,
 * and the file at `victim` (outside the folder) left as it was. */
static void refused(const char *dir, const char *what, const char *victim,
                    const char *label) {
  sfc_layout l = preset();
  sfc_status st;
  sfc_error err;
  char before[256] = "", after[256] = "";
  size_t had = victim ? slurp(victim, before, sizeof before) : 0;
  sfc_generator *g =
      check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(!g && st == SFC_STATE_ERROR && strstr(err.message, what), "%s: %s %s",
        label, sfc_status_name(st), g ? "(created)" : err.message);
  if (g) sfc_generator_free(g);
  if (victim)
    CHECK(slurp(victim, after, sizeof after) == had &&
              memcmp(before, after, had) == 0,
          "%s: %s was changed", label, victim);
}

static void planted(void) {
  char *dir = check_tmpdir();
  char *outside = check_tmpdir();
  char victim[512], target[512], link[512];
  snprintf(victim, sizeof victim, "%s/victim", outside);
  snprintf(target, sizeof target, "%s/created", outside);
  snprintf(link, sizeof link, "%s/link", outside);
  FILE *f = fopen(victim, "w");
  fputs("precious\n", f);
  fclose(f);

  /* Symbolic links where each of the files goes. */
  const char *names[] = {"worker-1.lock", "worker-1.state",
                         "worker-1.state.tmp"};
  for (int i = 0; i < 3; i++) {
    if (symlink(victim, join(dir, names[i])) != 0) fail_setup(__LINE__);
    refused(dir, "symbolic link", victim, names[i]);
    unlink(join(dir, names[i]));
  }
  /* A dangling one must not create its target either. */
  if (symlink(target, join(dir, "worker-1.state.tmp")) != 0)
    fail_setup(__LINE__);
  refused(dir, "symbolic link", NULL, "dangling link");
  CHECK(access(target, F_OK) != 0, "a dangling link's target was created");
  unlink(join(dir, "worker-1.state.tmp"));

  /* FIFOs: opening one for reading or writing would block for ever. */
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      unlink(join(dir, names[j]));
    if (mkfifo(join(dir, names[i]), 0600) != 0) fail_setup(__LINE__);
    int64_t t0 = wall_us();
    refused(dir, "FIFO", NULL, names[i]);
    CHECK(wall_us() - t0 < 2000000, "a FIFO as %s blocked", names[i]);
    unlink(join(dir, names[i]));
  }

  /* The folder itself: a link to a folder, open to every user's writes,
   * another user's. */
  if (symlink(dir, link) != 0) fail_setup(__LINE__);
  refused(link, "symbolic link", NULL, "state_dir a symbolic link");
  chmod(dir, 0777);
  refused(dir, "writable by every user", NULL, "mode 0777");
  chmod(dir, 01777); /* sticky, like /tmp: usable, files must be ours */
  sfc_layout l = preset();
  sfc_status st;
  sfc_error err;
  sfc_generator *g =
      check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_generator_free(g);
  chmod(dir, 0755);
  if (geteuid() == 0) {
    if (chown(dir, 65534, 65534) != 0) fail_setup(__LINE__);
    refused(dir, "belongs to uid 65534", NULL, "another user's folder");
    if (chown(dir, 0, 0) != 0) fail_setup(__LINE__);
    chmod(dir, 01777);
    if (chown(join(dir, "worker-1.lock"), 65534, 65534) != 0)
      fail_setup(__LINE__);
    refused(dir, "belongs to uid 65534", NULL, "another user's lock file");
  }
  check_rmdir(dir);
  check_rmdir(outside);
}

/* Whether the lock file at `path` is held by someone (a live generator). */
static int held(const char *path) {
  int fd = open(path, O_RDWR | O_NOFOLLOW);
  if (fd < 0) return 0;
  int locked = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return locked;
}

/* Waits up to a second for the keeper to put the lock and state files
 * back. */
static int restored(const char *lock, const char *state) {
  for (int i = 0; i < 100; i++) {
    if (held(lock) && access(state, F_OK) == 0) return 1;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  return 0;
}

/* A generator of worker 5 in a child process (the same one again in this
 * process would take the value over): its status, and whether the message
 * names this process as the holder. */
static int refused_in_child(const sfc_layout *l, const char *dir,
                            const char *holder) {
  pid_t pid = fork();
  if (pid == 0) {
    sfc_status st;
    sfc_error err;
    sfc_generator *g =
        check_generator(l, "worker", 5, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
    if (g) sfc_generator_free(g);
    _exit(st == SFC_WORKER_UNAVAILABLE && strstr(err.message, holder) ? 0 : 1);
  }
  return pid > 0 && check_wait(pid) == 0;
}

static void removed(void) {
  char *dir = check_tmpdir();
  char lock[512], state[512];
  snprintf(lock, sizeof lock, "%s/worker-5.lock", dir);
  snprintf(state, sizeof state, "%s/worker-5.state", dir);
  sfc_layout l = preset();
  sfc_status st;
  sfc_error err;
  sfc_generator *g =
      check_generator(&l, "worker", 5, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  uint64_t ids[4000];
  CHECK_STATUS(sfc_next_ids(g, ids, 1000, NULL, &err), SFC_OK, err);

  /* The lock file removed: a second holder is refused, and the keeper puts
   * the file back. */
  unlink(lock);
  char pid[64];
  snprintf(pid, sizeof pid, "held by live process %ld", (long)getpid());
  CHECK(refused_in_child(&l, dir, pid), "second holder after rm");
  unlink(lock); /* the refused one may have created it again */
  CHECK(restored(lock, state), "the files were not put back");
  CHECK_STATUS(sfc_next_ids(g, ids + 1000, 1000, NULL, &err), SFC_OK, err);

  /* The whole folder removed: the same. */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fail_setup(__LINE__);
  CHECK(refused_in_child(&l, dir, "held by"), "second holder after rm -rf");
  CHECK(restored(lock, state), "the files were not put back in a new folder");
  CHECK_STATUS(sfc_next_ids(g, ids + 2000, 1000, NULL, &err), SFC_OK, err);

  /* Another holder that the host-wide name cannot see (a process in another
   * network namespace, sharing the folder) takes the removed lock file: the
   * generator stops for good instead of sharing the value. */
  unlink(lock);
  int other = open(lock, O_RDWR | O_CREAT, 0644);
  CHECK(other >= 0 && flock(other, LOCK_EX | LOCK_NB) == 0, "other holder");
  size_t got = 0;
  st = SFC_OK;
  for (int i = 0; i < 300 && st != SFC_WORKER_UNAVAILABLE; i++) {
    uint64_t id;
    st = sfc_next(g, &id, &err);
    if (st == SFC_OK && got < 1000) ids[3000 + got++] = id;
    struct timespec ts = {0, 5000000};
    nanosleep(&ts, NULL);
  }
  CHECK(st == SFC_WORKER_UNAVAILABLE && strstr(err.message, "lost"),
        "a generator whose value was taken: %s %s", sfc_status_name(st),
        err.message);
  uint64_t id;
  CHECK(sfc_next(g, &id, &err) == SFC_WORKER_UNAVAILABLE, "stays stopped");
  sfc_generator_free(g);
  close(other);
  size_t dups = check_duplicates(ids, 3000 + got);
  CHECK(dups == 0, "%zu duplicates", dups);
  check_rmdir(dir);
}

/* The keeper must never persist a clock value older than the one the state
 * word may use. The hook stalls the bumping thread after the state file
 * names the new clock value and before the word switches to it, for longer
 * than many keeper cycles (the reserve is 4 ms): the file must still name
 * the new value when the stall ends — it is what a crash right then would
 * leave behind. */
static char bump_state[512];
static long long bump_file_clock = -1;
static int bump_stalls;

static long long file_clock(const char *path) {
  char buf[8192];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = '\0';
  const char *c = strstr(buf, "\nclock ");
  return c ? strtoll(c + 7, NULL, 10) : -1;
}

static void stall(const char *point) {
  if (!strstr(point, "bump_clock")) return;
  bump_stalls++;
  struct timespec ts = {0, 300000000};
  nanosleep(&ts, NULL);
  bump_file_clock = file_clock(bump_state);
}

static void bump_vs_keeper(void) {
  char *dir = check_tmpdir();
  snprintf(bump_state, sizeof bump_state, "%s/worker-3.state", dir);
  sfc_layout l = preset();
  sfc_node_value node[] = {{"worker", 3, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_text(&opts, SFC_OPTION_STATE_DIR, dir);
  set_rollback(&opts, SFC_ROLLBACK_CLOCK);
  set_ms(&opts, SFC_OPTION_MAX_WAIT, 0);
  set_ms(&opts, SFC_OPTION_STATE_RESERVE, 4);
  sfc_generator *g = NULL;
  sfc_error err;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &g, &err), SFC_OK, err);
  uint64_t a = 0, b = 0;
  int64_t now = wall_us(), wait = 0;
  sfc_status st;
  /* The mark is 4 ms ahead: on a loaded machine the keeper may lag. */
  while ((st = sfc_next_at(g, now, &a, &wait, &err)) == SFC_WAIT)
    sfc_pause(1000);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_test_hook = stall;
  /* 50 ms back: a clock bump from value 0 to 1. */
  CHECK_STATUS(sfc_next_at(g, now - 50000, &b, &wait, &err), SFC_OK, err);
  sfc_test_hook = NULL;
  CHECK(bump_stalls == 1, "the hook ran %d times", bump_stalls);
  CHECK(check_field(&l, b, "clock") == 1, "bumped to clock 1");
  CHECK(bump_file_clock == 1,
        "while the bump was half done, the state file said clock %lld: a "
        "crash then would reuse clock 1",
        bump_file_clock);
  sfc_generator_free(g);
  CHECK(file_clock(bump_state) == 1, "after a clean close");
  check_rmdir(dir);
}

#if defined(__linux__)
#include <sys/socket.h>
#include <sys/un.h>

/* Binds the abstract name `name` ("@snowflake-c/claim/<hex>", as stats
 * say it) as a squatter: a socket that does not listen, or that listens. */
static int squat(const char *name, bool listening) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  int m = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "%s", name + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 ||
      bind(fd, (struct sockaddr *)&addr,
           (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                       (size_t)m)) != 0 ||
      (listening && listen(fd, 4) != 0))
    fail_setup(__LINE__);
  return fd;
}

/* qemu-user does not translate the kernel's socket table (sock_diag
 * netlink) for its guest: there a silent name's uid cannot be told, and the
 * refusal says how to find it instead (meson names the runner). */
static bool socket_table_hidden(void) {
  const char *runner = getenv("MESON_EXE_WRAPPER");
  return runner && strstr(runner, "qemu");
}

/* The refusal by a silent squatter of uid `uid`: named by its uid where the
 * socket table can be read, and told how to find it. */
static bool names_silent(const char *message, long uid) {
  char owner[64];
  snprintf(owner, sizeof owner, "of uid %ld that does not answer", uid);
  if (socket_table_hidden())
    return strstr(message, "does not answer") && strstr(message, "ss -xlp");
  return strstr(message, owner) && strstr(message, "ss -xlp");
}

/* Abstract names have no permissions: whoever binds a value's name holds
 * it. A squatter — silent, or another user's — makes creation fail loudly,
 * naming what it can; never a silent start beside it. */
static void squatters(void) {
  char *dir = check_tmpdir();
  sfc_layout l = preset();
  sfc_status st;
  sfc_error err;
  sfc_generator *g =
      check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (!g) return;
  sfc_stats s;
  sfc_generator_stats(g, &s);
  char name[160];
  snprintf(name, sizeof name, "%s",
           sfc_stats_text(&s, SFC_STAT_GUARD) + strlen("held: "));
  sfc_generator_free(g);
  int fd = squat(name, false);
  g = check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  /* Named by its uid from the kernel's socket table (Linux 5.3 and later),
   * and told how to find the process. */
  CHECK(!g && st == SFC_WORKER_UNAVAILABLE &&
            names_silent(err.message, (long)geteuid()) &&
            strstr(err.message, name),
        "a bound, silent name holds the value, named by its uid: %s",
        err.message);
  sfc_generator_free(g);
  close(fd);
  for (int listening = 0; geteuid() == 0 && listening < 2; listening++) {
    int ready[2], done[2];
    if (pipe(ready) != 0 || pipe(done) != 0) fail_setup(__LINE__);
    pid_t pid = fork();
    if (pid == 0) {
      close(ready[0]);
      close(done[1]);
      if (setuid(65534) != 0) _exit(1);
      int q = squat(name, listening);
      char c = 1;
      if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0) _exit(1);
      close(q);
      _exit(0);
    }
    close(ready[1]);
    close(done[0]);
    char c;
    CHECK(read(ready[0], &c, 1) == 1, "squatter ready");
    g = check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
    CHECK(!g && st == SFC_WORKER_UNAVAILABLE &&
              (listening ? strstr(err.message, "of uid 65534") != NULL
                         : names_silent(err.message, 65534)),
          "another user's name (%s) holds the value, and is named: %s",
          listening ? "listening" : "silent", err.message);
    sfc_generator_free(g);
    c = 1;
    CHECK(write(done[1], &c, 1) == 1, "squatter told");
    CHECK(check_wait(pid) == 0, "squatter");
  }
  g = check_generator(&l, "worker", 1, dir, SFC_ROLLBACK_DEFAULT, &st, &err);
  CHECK(g != NULL, "free again once the squatters are gone: %s", err.message);
  sfc_generator_free(g);
  check_rmdir(dir);
}
#else
static void squatters(void) {}
#endif

int main(void) {
  planted();
  removed();
  squatters();
  bump_vs_keeper();
  return check_summary();
}
