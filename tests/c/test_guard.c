/* The guard: one host-wide claim per ID space and node bits. A second live
 * generator that could issue the same IDs is refused at creation, in this
 * process as in another, whatever its field names, state_dir or pool;
 * anything else (other bits, another epoch or time unit, the guard off, a
 * value given back) starts; a value given back ahead of the clock hands its
 * last IDs over; a forked child drops its parent's claim; running out of
 * descriptors refuses creation instead of starting unguarded. Every
 * layout here has an epoch of this run's own, so that nothing else on the
 * machine shares its claims. */
#include "check.h"

extern void (*sfc_test_hook)(const char *point);

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#if defined(_WIN32)
#include <windows.h>
#else
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

static long own_pid(void) {
#if defined(_WIN32)
  return (long)GetCurrentProcessId();
#else
  return (long)getpid();
#endif
}

#if !defined(_WIN32)
static int check_wait_pid(pid_t pid) {
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}
#endif

static sfc_layout layout(const char *spec) {
  return check_layout(spec, check_run_epoch());
}

static sfc_generator *open_with(const sfc_layout *l, const sfc_node_value *node,
                                size_t count, const char *state_dir,
                                int guard_off, sfc_status *st, sfc_error *err) {
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, count);
  set_text(&opts, SFC_OPTION_STATE_DIR, state_dir);
  set_bool(&opts, SFC_OPTION_GUARD, !guard_off);
  sfc_generator *g = NULL;
  *st = sfc_generator_new(l, &opts, &g, err);
  return *st == SFC_OK ? g : NULL;
}

static sfc_generator *open_gen(const sfc_layout *l, int64_t worker,
                               int guard_off, sfc_status *st, sfc_error *err) {
  sfc_node_value node[] = {{"worker", worker, SFC_SOURCE_EXPLICIT}};
  return open_with(l, node, 1, NULL, guard_off, st, err);
}

static const char *guard_of(const sfc_generator *g) {
  sfc_stats s;
  sfc_generator_stats(g, &s);
  return sfc_stats_text(&s, SFC_STAT_GUARD);
}

static void same_value_taken_over(void) {
  sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
  sfc_status st;
  sfc_error err;
  sfc_generator *a = open_gen(&l, 3, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (!a) return;
  const char *held = guard_of(a);
#if defined(_WIN32)
  const char *kind = "snowflake-c-";
#else
  const char *kind = "@snowflake-c/claim/";
#endif
  CHECK(strncmp(held, "held: ", 6) == 0 && strstr(held, kind),
        "stats name the claim: %s", held);
  CHECK(check_warning(a, "Unguarded") == NULL,
        "a guarded generator is not unguarded");

  /* The same generator again (a cell or a reload run twice): it takes the
   * value over, the older one closed, and starts after its last ID. */
  uint64_t before[64], after[64];
  CHECK_STATUS(sfc_next_ids(a, before, 64, NULL, &err), SFC_OK, err);
  sfc_generator *b = open_gen(&l, 3, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  CHECK(check_taken_over(a, "worker=3"),
        "the older one says it was taken over");
  if (b) {
    CHECK_STATUS(sfc_next_ids(b, after, 64, NULL, &err), SFC_OK, err);
    CHECK(after[0] > before[63], "the newer one starts after the older one");
  }
  sfc_generator_free(a);
  a = b;
  if (!a) return;
  held = guard_of(a);
  char pid[48];
  snprintf(pid, sizeof pid, "live process %ld", own_pid());

  /* What cannot issue the same integers starts; another epoch or time
   * unit of the same node bits issues the same integers at other times. */
  sfc_layout other_epoch = check_layout("time:41@1ms,worker:10,seq:12", 1);
  sfc_layout other_unit = layout("time:41@10ms,worker:10,seq:12");
  sfc_layout below = layout("time:31@1s,worker:10,seq:12");
  b = open_gen(&l, 4, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_generator_free(b);
  b = open_gen(&other_epoch, 3, 0, &st, &err);
  CHECK(!b && st == SFC_WORKER_UNAVAILABLE && strstr(err.message, pid) &&
            strstr(err.message, held + 6) &&
            strstr(err.message, ", this process: ") &&
            strstr(err.message, "close that one first"),
        "another epoch, the same value: %s", err.message);
  CHECK(!check_taken_over(a, "worker=3"), "another layout takes nothing over");
  sfc_generator_free(b);
  b = open_gen(&other_unit, 3, 0, &st, &err);
  CHECK(!b && st == SFC_WORKER_UNAVAILABLE,
        "another time unit, the same value: %s", err.message);
  sfc_generator_free(b);
  b = open_gen(&below, 3, 0, &st, &err);
  CHECK(b != NULL, "53 bits beside 63 of a past epoch cannot meet: %s",
        err.message);
  sfc_generator_free(b);
  /* A clock field where another layout has a node field: dc 0 and worker
   * 5 beside clock and worker 5 issue the same integers. */
  sfc_layout clocked = layout("time:41@1ms,clock:3,worker:7,seq:6");
  sfc_layout dc = layout("time:41@1ms,dc:3,worker:7,seq:6");
  sfc_generator *c1 = open_gen(&clocked, 5, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_node_value dc0[] = {{"dc", 0, SFC_SOURCE_EXPLICIT},
                          {"worker", 5, SFC_SOURCE_EXPLICIT}};
  b = open_with(&dc, dc0, 2, NULL, 0, &st, &err);
  CHECK(!b && st == SFC_WORKER_UNAVAILABLE &&
            strstr(err.message, "time:41@1ms,clock:3,worker:7,seq:6"),
        "a node field where the holder has its clock field: %s", err.message);
  sfc_generator_free(b);
  sfc_generator_free(c1);

  /* Off: it starts, and says so. */
  b = open_gen(&l, 3, 1, &st, &err);
  const char *unguarded = b ? check_warning(b, "Unguarded") : NULL;
  CHECK(b && strcmp(guard_of(b), "off") == 0 && unguarded &&
            strstr(unguarded, "worker=3") && strstr(unguarded, "not guarded"),
        "the guard turned off: %s / %s", err.message,
        unguarded ? unguarded : "");
  sfc_generator_free(b);

  /* Given back: free at once. */
  sfc_generator_free(a);
  a = open_gen(&l, 3, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_generator_free(a);
}

/* The claim is the IDs', not the names': datacenter 1 and worker 3 of
 * 5 + 5 bits are worker 35 of 10 bits. */
static void field_names_do_not_split(void) {
  sfc_layout split = layout("time:41@1ms,datacenter:5,worker:5,seq:12");
  sfc_layout whole = layout("time:41@1ms,worker:10,seq:12");
  sfc_node_value two[] = {{"datacenter", 1, SFC_SOURCE_EXPLICIT},
                          {"worker", 3, SFC_SOURCE_EXPLICIT}};
  sfc_status st;
  sfc_error err;
  sfc_generator *a = open_with(&split, two, 2, NULL, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_generator *b = open_gen(&whole, 35, 0, &st, &err);
  CHECK(!b && st == SFC_WORKER_UNAVAILABLE && strstr(err.message, "worker=35"),
        "worker 35 of worker:10 beside datacenter 1, worker 3: %s %s",
        sfc_status_name(st), err.message);
  sfc_generator_free(b);
  b = open_gen(&whole, 36, 0, &st, &err);
  CHECK(b != NULL, "worker 36 is other bits: %s", err.message);
  sfc_generator_free(b);
  sfc_generator_free(a);
}

/* A state_dir, a pool or the lack of both: one claim. */
static void options_do_not_split(void) {
  sfc_layout l = layout("time:41@1ms,worker:4,seq:12");
  char one[600], two[600];
  check_temp_folder("guard-state", one, sizeof one);
  check_temp_folder("guard-state", two, sizeof two);
  sfc_node_value w5[] = {{"worker", 5, SFC_SOURCE_EXPLICIT}};
  sfc_node_value pool[] = {{"worker", 0, SFC_SOURCE_POOL}};
  sfc_status st;
  sfc_error err;
  /* In this process each takes the one before over: one claim, whatever
   * the state_dir. */
  sfc_generator *plain = open_gen(&l, 5, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  sfc_generator *stated = open_with(&l, w5, 1, one, 0, &st, &err);
  CHECK(stated && check_taken_over(plain, "worker=5"),
        "a state_dir beside a guard-only generator: %s %s", sfc_status_name(st),
        err.message);
  CHECK(stated && strncmp(guard_of(stated), "held: ", 6) == 0, "%s",
        stated ? guard_of(stated) : "");
  sfc_generator_free(plain);
  sfc_generator *other = open_with(&l, w5, 1, two, 0, &st, &err);
  CHECK(other && check_taken_over(stated, "worker=5"),
        "another state_dir, the same value: %s %s", sfc_status_name(st),
        err.message);
  sfc_generator_free(stated);
  plain = open_gen(&l, 5, 0, &st, &err);
  CHECK(plain && check_taken_over(other, "worker=5"),
        "a guard-only generator beside a state_dir: %s", err.message);
  sfc_generator_free(other);
  stated = plain;

  /* The pool of another folder passes over a value claimed elsewhere. */
  sfc_generator *held[16] = {NULL};
  int taken = 0;
  for (int i = 0; i < 15; i++) {
    held[i] = open_with(&l, pool, 1, two, 0, &st, &err);
    if (!held[i]) break;
    sfc_stats s;
    sfc_generator_stats(held[i], &s);
    CHECK(stats_node(&s, 0) != 5, "the pool took worker 5, held elsewhere");
    taken++;
  }
  CHECK(taken == 15, "the pool gives the 15 other values: %d (%s)", taken,
        err.message);
  sfc_generator *last = open_with(&l, pool, 1, two, 0, &st, &err);
  CHECK(!last && st == SFC_WORKER_UNAVAILABLE, "none left: %s", err.message);
  sfc_generator_free(last);
  for (int i = 0; i < 15; i++)
    sfc_generator_free(held[i]);
  sfc_generator_free(stated);
}

/* A value given back and taken again at once, in this process: the new
 * generator must not repeat the old one's IDs of the same tick. */
static void quick_reuse(const char *spec) {
  enum { ROUNDS = 200, N = 100 };
  static uint64_t ids[ROUNDS * N];
  sfc_layout l = layout(spec);
  for (int r = 0; r < ROUNDS; r++) {
    sfc_status st;
    sfc_error err;
    sfc_generator *g = open_gen(&l, 7, 0, &st, &err);
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
  /* Taken and given back once the clock is past: no record is left. */
  sfc_pause(30000);
  sfc_status st;
  sfc_error err;
  sfc_generator_free(open_gen(&l, 7, 0, &st, &err));
}

/* A generator that borrowed ahead of the clock hands its last tick over:
 * the next holder of the value, in another mode (a state_dir), starts
 * after it. */
static void hand_over_ahead(void) {
  enum { N = 8000 };
  static uint64_t ids[2 * N];
  sfc_layout l = layout("time:41@1ms,worker:10,seq:2");
  char dir[600];
  check_temp_folder("guard-handover", dir, sizeof dir);
  sfc_node_value w9[] = {{"worker", 9, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, w9, 1);
  set_rollback(&opts, SFC_ROLLBACK_BORROW);
  set_ms(&opts, SFC_OPTION_MAX_DRIFT, 5000);
  sfc_generator *a = NULL;
  sfc_error err;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &a, &err), SFC_OK, err);
  if (!a) return;
  /* Four IDs a tick: 8000 IDs borrow seconds ahead of the clock. */
  CHECK_STATUS(sfc_next_ids(a, ids, N, NULL, &err), SFC_OK, err);
  sfc_stats s;
  sfc_generator_stats(a, &s);
  CHECK(sfc_stats_uint(&s, SFC_STAT_BORROWED_TICKS) > 500,
        "borrowed %llu ticks",
        (unsigned long long)sfc_stats_uint(&s, SFC_STAT_BORROWED_TICKS));
  sfc_generator_free(a);

  set_text(&opts, SFC_OPTION_STATE_DIR, dir);
  set_rollback(&opts, SFC_ROLLBACK_WAIT);
  set_ms(&opts, SFC_OPTION_MAX_DRIFT, INT64_MIN);
  set_ms(&opts, SFC_OPTION_MAX_WAIT, 20000);
  sfc_generator *b = NULL;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &b, &err), SFC_OK, err);
  if (!b) return;
  CHECK_STATUS(sfc_next_ids(b, ids + N, N, NULL, &err), SFC_OK, err);
  CHECK(ids[N] > ids[N - 1], "the next holder starts after the last ID");
  CHECK(check_duplicates(ids, 2 * N) == 0, "no duplicate across the hand-over");
  sfc_generator_free(b);

  /* Given back behind the clock: nothing is kept. */
  set_text(&opts, SFC_OPTION_STATE_DIR, NULL);
  sfc_generator *c = NULL;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &c, &err), SFC_OK, err);
  uint64_t id;
  if (c) CHECK_STATUS(sfc_next(c, &id, &err), SFC_OK, err);
  sfc_generator_stats(c, &s);
#if !defined(_WIN32)
  /* "snowflake-c-<mask>.<value>.<layout>.u<uid>": written ahead while it
   * lives, closed with the exact last tick when it is given back. */
  char pattern[160], found[300] = "";
  const char *hex = strrchr(sfc_stats_text(&s, SFC_STAT_GUARD), '/');
  snprintf(pattern, sizeof pattern, "snowflake-c-%.33s.", hex ? hex + 1 : "");
  /* Runs of other layouts and users leave records of this value beside
   * it: the holder's is this user's that names this process. */
  char own[32], pid_line[32], text[8192] = "";
  snprintf(own, sizeof own, ".u%u", (unsigned)geteuid());
  snprintf(pid_line, sizeof pid_line, "\npid %ld\n", (long)getpid());
  DIR *d = opendir("/dev/shm");
  for (struct dirent *e; d && !found[0] && (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, pattern, strlen(pattern)) != 0 ||
        len <= strlen(own) || strcmp(e->d_name + len - strlen(own), own))
      continue;
    char path[300];
    snprintf(path, sizeof path, "/dev/shm/%.250s", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    if (strstr(text, pid_line)) snprintf(found, sizeof found, "%s", path);
  }
  if (d) closedir(d);
  if (!found[0]) text[0] = '\0';
  CHECK(found[0], "a holder's record file is there: %s*%s", pattern, own);
  CHECK(strstr(text, "\nstate open\n"), "written ahead while it lives");
  sfc_generator_free(c);
  FILE *f = found[0] ? fopen(found, "r") : NULL;
  if (f) {
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
  }
  CHECK(strstr(text, "\nstate closed\n"), "closed once given back: %s", text);
#else
  sfc_generator_free(c);
#endif
}

/* Long names: the claim's name is a hash, never too long; a state_dir's
 * file names are hashed too. */
static void long_names(void) {
  char spec[600] = "time:41@1ms";
  sfc_node_value node[8];
  static char names[8][32];
  for (int i = 0; i < 8; i++) {
    snprintf(names[i], sizeof names[i], "f%030d", i);
    size_t n = strlen(spec);
    snprintf(spec + n, sizeof spec - n, ",%s:1", names[i]);
    node[i] = (sfc_node_value){names[i], i & 1, SFC_SOURCE_EXPLICIT};
  }
  strcat(spec, ",seq:12");
  sfc_layout l = layout(spec);
  char dir[600];
  check_temp_folder("guard-long", dir, sizeof dir);
  sfc_status st;
  sfc_error err;
  sfc_generator *a = open_with(&l, node, 8, NULL, 0, &st, &err);
  CHECK(a && strncmp(guard_of(a), "held: ", 6) == 0, "guarded: %s",
        a ? guard_of(a) : err.message);
  sfc_generator *b = open_with(&l, node, 8, dir, 0, &st, &err);
  CHECK(b != NULL, "a state_dir of long names: %s", err.message);
  uint64_t id;
  CHECK(a && sfc_next(a, &id, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "took node value f000"),
        "taken over: %s", err.message);
  sfc_generator_free(a);
  sfc_generator_free(b);
}

/* One ID at a caller's time, in the holder among the clock's IDs or as the
 * successor's first: that timeline starts from nothing, and the clock's IDs
 * still hand over and go on after the holder's (before, the holder handed
 * over nothing, and a successor's first caller-timed ID dropped what it was
 * handed: either repeated the holder's IDs in its 1 s tick). */
static void caller_time_hand_over(bool in_holder, int64_t worker) {
  enum { N = 2000 };
  static uint64_t before[N], after[N];
  sfc_layout l = layout("time:32@1s,worker:3,seq:14");
  sfc_status st;
  sfc_error err;
  uint64_t at = 0;
  int64_t wait = 0;
  size_t got = 0;
  const char *who = in_holder ? "holder" : "successor";
  sfc_generator *g = open_gen(&l, worker, 0, &st, &err);
  CHECK(g && sfc_next_ids(g, before, N, &got, &err) == SFC_OK && got == N,
        "%s: the holder's IDs: %s", who, err.message);
  if (!g) return;
  if (in_holder)
    CHECK(sfc_next_at(g, sfc_generator_now_us(g), &at, &wait, &err) == SFC_OK,
          "%s: an ID at the caller's time: %s", who, err.message);
  sfc_generator_free(g);
  g = open_gen(&l, worker, 0, &st, &err);
  CHECK(g != NULL, "%s: the successor: %s", who, err.message);
  if (!g) return;
  if (!in_holder)
    CHECK(sfc_next_at(g, sfc_generator_now_us(g), &at, &wait, &err) == SFC_OK,
          "%s: an ID at the caller's time: %s", who, err.message);
  got = 0;
  CHECK(sfc_next_ids(g, after, N, &got, &err) == SFC_OK && got == N,
        "%s: the clock's IDs: %s", who, err.message);
  sfc_generator_free(g);
  qsort(before, N, sizeof before[0], check_cmp_u64);
  size_t again = 0;
  for (size_t i = 0; i < got; i++)
    again +=
        bsearch(&after[i], before, N, sizeof before[0], check_cmp_u64) != NULL;
  CHECK(again == 0, "%s: %zu of the holder's IDs issued again from the clock",
        who, again);
  CHECK(after[0] > before[N - 1] && (!in_holder || after[0] > at),
        "%s: the clock's IDs go on after the holder's", who);
}

#if !defined(_WIN32)
/* A forked helper that never uses the generator lets go of the claim at
 * once: with the parent's generator freed, the value is free while the
 * child still lives. */
static void fork_drops_claim(void) {
  sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
  sfc_status st;
  sfc_error err;
  sfc_generator *g = open_gen(&l, 21, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  int go[2];
  if (!g || pipe(go) != 0) return;
  int up[2];
  if (pipe(up) != 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    char c = 'y';
    close(go[1]);
    close(up[0]);
    if (write(up[1], &c, 1) != 1) _exit(2); /* its fork handlers ran */
    _exit(read(go[0], &c, 1) == 0 ? 0 : 1); /* lives until told */
  }
  close(go[0]);
  close(up[1]);
  char c;
  CHECK(read(up[0], &c, 1) == 1, "the child runs");
  close(up[0]);
  sfc_generator_free(g);
  g = open_gen(&l, 21, 0, &st, &err);
  CHECK(g != NULL, "taken again while the forked child lives: %s %s",
        sfc_status_name(st), err.message);
  sfc_generator_free(g);
  close(go[1]);
  CHECK(check_wait_pid(pid) == 0, "the child");
}

/* Out of descriptors: creation fails and says why; every generator that
 * starts is guarded. */
static void descriptors_run_out(void) {
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit lim = {24, 24};
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) _exit(2);
    sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
    sfc_generator *g[24];
    int n = 0;
    sfc_status st = SFC_OK;
    sfc_error err;
    for (; n < 24; n++) {
      g[n] = open_gen(&l, 100 + n, 0, &st, &err);
      if (!g[n]) break;
      if (strncmp(guard_of(g[n]), "held: ", 6) != 0) _exit(3);
    }
    if (n == 24 || st != SFC_STATE_ERROR || !strstr(err.message, "open files"))
      _exit(4);
    for (int i = 0; i < n; i++)
      sfc_generator_free(g[i]);
    g[0] = open_gen(&l, 100 + n, 0, &st, &err);
    int ok = g[0] && strncmp(guard_of(g[0]), "held: ", 6) == 0;
    sfc_generator_free(g[0]);
    _exit(ok ? 0 : 5);
  }
  int rc = check_wait_pid(pid);
  CHECK(rc == 0,
        "out of descriptors: refused with StateError, never "
        "unguarded (child exit %d)",
        rc);
}

#if defined(__linux__)
/* The text of the one record in /dev/shm whose name starts with `prefix`
 * (NULL if not exactly one). */
static char *record_text(const char *prefix) {
  static char text[8192];
  int records = 0;
  DIR *d = opendir("/dev/shm");
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
    char path[300];
    snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = '\0';
    records++;
  }
  if (d) closedir(d);
  return records == 1 ? text : NULL;
}

static char record_prefix[64];
static bool said_taking;

static void look_at_record(const char *point) {
  if (strcmp(point, "claim: generator whole, not settled") != 0) return;
  const char *text = record_text(record_prefix);
  said_taking = text && strstr(text, "\ntaking ") &&
                !strstr(text, "\ntaking 0000000000000000\n");
}

/* A hand-over record shows its holder's rank until the generator is whole,
 * as the claim's ranked name does: one in another network namespace, which
 * sees the record and not the name, looks again meanwhile, for a create
 * may yet fail after the claim. Once whole, it says settled (a refusal for
 * good). */
static void record_settled_when_whole(void) {
  sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
  sfc_status st;
  sfc_error err;
  /* The record's name starts with the claim's: the layout's fixed bits. */
  sfc_generator *probe = open_gen(&l, 11, 0, &st, &err);
  CHECK_STATUS(st, SFC_OK, err);
  if (!probe) return;
  const char *at = strstr(guard_of(probe), "/claim/");
  if (at)
    snprintf(record_prefix, sizeof record_prefix, "snowflake-c-%s.", at + 7);
  sfc_generator_free(probe);
  sfc_test_hook = look_at_record;
  sfc_generator *g = open_gen(&l, 11, 0, &st, &err);
  sfc_test_hook = NULL;
  CHECK_STATUS(st, SFC_OK, err);
  CHECK(said_taking, "the record shows a rank while its generator is made");
  const char *text = record_text(record_prefix);
  CHECK(text && strstr(text, "\nstate open\ntaking 0000000000000000\n"),
        "the record of a whole generator says settled: %.300s",
        text ? text : "(not one record)");
  sfc_generator_free(g);
}

extern bool sfc_claim_by_file;

/* The lock-file claim of macOS, run here: the same refusals. */
static void file_claims(void) {
  sfc_claim_by_file = true;
  sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
  sfc_status st;
  sfc_error err;
  sfc_generator *a = open_gen(&l, 3, 0, &st, &err);
  CHECK(a && strstr(guard_of(a), "/dev/shm/snowflake-c-") &&
            strstr(guard_of(a), ".claim"),
        "a claim file: %s", a ? guard_of(a) : err.message);
  char path[200];
  snprintf(path, sizeof path, "%s", a ? guard_of(a) + 6 : "");
  sfc_generator *b = open_gen(&l, 3, 0, &st, &err);
  CHECK(b && check_taken_over(a, "worker=3"),
        "taken over by the claim file: %s", err.message);
  sfc_layout other_epoch = check_layout("time:41@1ms,worker:10,seq:12", 1);
  sfc_generator *c = open_gen(&other_epoch, 3, 0, &st, &err);
  char pid[48];
  snprintf(pid, sizeof pid, "live process %ld", own_pid());
  CHECK(!c && st == SFC_WORKER_UNAVAILABLE && strstr(err.message, pid),
        "refused by the claim file: %s", err.message);
  sfc_generator_free(c);
  /* A forked child closes its copies and removes nothing: the file its
   * parent holds stays, and so does the refusal. */
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = -1;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status),
        "the forked child exits");
  struct stat there;
  CHECK(stat(path, &there) == 0,
        "a forked child leaves its parent's claim "
        "file: %s",
        path);
  c = open_gen(&other_epoch, 3, 0, &st, &err);
  CHECK(!c && st == SFC_WORKER_UNAVAILABLE && strstr(err.message, pid),
        "still refused after a fork: %s", c ? "taken" : err.message);
  sfc_generator_free(c);
  sfc_generator_free(a);
  sfc_generator_free(b);
  struct stat sb;
  CHECK(stat(path, &sb) != 0, "the claim file goes with its holder");
  quick_reuse("time:41@1ms,worker:10,seq:12");
  sfc_claim_by_file = false;
}
#endif

/* Another user holding the value: refused, naming that user (root only). */
static void other_user(void) {
  if (geteuid() != 0) return;
  sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
  int ready[2], done[2];
  if (pipe(ready) != 0 || pipe(done) != 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    sfc_status st;
    sfc_error err;
    close(ready[0]);
    close(done[1]);
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    sfc_generator *g = open_gen(&l, 30, 0, &st, &err);
    char c = g ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1) _exit(3);
    int ok = read(done[0], &c, 1) >= 0 && g;
    sfc_generator_free(g);
    _exit(ok ? 0 : 4);
  }
  close(ready[1]);
  close(done[0]);
  char c = 0;
  CHECK(read(ready[0], &c, 1) == 1 && c == 'y', "uid 65534 took worker 30");
  sfc_status st;
  sfc_error err;
  sfc_generator *g = open_gen(&l, 30, 0, &st, &err);
  CHECK(!g && st == SFC_WORKER_UNAVAILABLE && strstr(err.message, "uid 65534"),
        "another user's claim is refused, naming the user: %s", err.message);
  sfc_generator_free(g);
  close(done[1]);
  close(ready[0]);
  CHECK(check_wait_pid(pid) == 0, "the other user's process");
  g = open_gen(&l, 30, 0, &st, &err);
  CHECK(g != NULL, "free once that user's process is gone: %s", err.message);
  sfc_generator_free(g);
}

#if defined(__linux__)
/* Forks while other threads create and free generators: no child ever
 * holds a claim (before, a generator was registered for the fork handler
 * only at the end of its creation and unregistered before it gave its
 * claim back: 15 of 230 children kept it). A child looks for an abstract
 * socket of ours among its descriptors. */
static void *churn(void *arg) {
  atomic_int *stop = arg;
  sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
  while (!atomic_load(stop)) {
    sfc_status st;
    sfc_error err;
    sfc_generator *g = open_gen(&l, 40, 0, &st, &err);
    sfc_generator_free(g);
  }
  return NULL;
}

static bool holds_a_claim(void) {
  for (int fd = 0; fd < 1024; fd++) {
    struct sockaddr_un addr;
    socklen_t len = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &len) != 0 ||
        addr.sun_family != AF_UNIX ||
        len <= offsetof(struct sockaddr_un, sun_path) + 1)
      continue;
    if (addr.sun_path[0] == '\0' &&
        strncmp(addr.sun_path + 1, "snowflake-c/claim/", 18) == 0)
      return true;
  }
  return false;
}

static void fork_while_churning(void) {
  atomic_int stop = 0;
  check_thread t[2];
  for (int i = 0; i < 2; i++)
    check_thread_start(&t[i], churn, (void *)&stop);
  int kept = 0, forks = 200;
  for (int i = 0; i < forks; i++) {
    pid_t pid = fork();
    if (pid == 0) _exit(holds_a_claim() ? 1 : 0);
    kept += check_wait_pid(pid) != 0;
  }
  atomic_store(&stop, 1);
  for (int i = 0; i < 2; i++)
    check_thread_join(t[i]);
  CHECK(kept == 0,
        "%d of %d children forked while generators came and went "
        "held a claim",
        kept, forks);
}
#endif

/* A holder under umask 077 (PostgreSQL's) leaves a record another user's
 * successor reads: it starts after the holder's last ID (root only). */
static void umask_077(void) {
  if (geteuid() != 0) return;
  sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
  int ids[2];
  if (pipe(ids) != 0) return;
  for (int k = 0; k < 2; k++) {
    pid_t pid = fork();
    if (pid == 0) {
      uid_t uid = k ? 65534 : 65533;
      umask(077);
      if (setgid(uid) != 0 || setuid(uid) != 0) _exit(2);
      sfc_status st;
      sfc_error err;
      sfc_generator *g = open_gen(&l, 32, 0, &st, &err);
      if (!g) {
        fprintf(stderr, "uid %d: %s\n", (int)uid, err.message);
        _exit(3);
      }
      uint64_t id = 0;
      for (int i = 0; i < 1000; i++)
        if (sfc_next(g, &id, &err) != SFC_OK) _exit(4);
      sfc_generator_free(g);
      if (write(ids[1], &id, sizeof id) != sizeof id) _exit(5);
      _exit(0);
    }
    CHECK(check_wait_pid(pid) == 0, "user %d's generator under umask 077", k);
  }
  uint64_t first = 0, second = 0;
  CHECK(read(ids[0], &first, sizeof first) == sizeof first &&
            read(ids[0], &second, sizeof second) == sizeof second,
        "both issued");
  close(ids[0]);
  close(ids[1]);
  CHECK(second > first, "the successor went on after the holder's IDs");
}

/* Runs a generator of worker 941 as uid, issuing 1000 IDs; its last ID is
 * written to out. Exits 0, or 3 with the refusal's message on stderr when
 * the message holds refused (NULL: any refusal fails). */
static int as_user_941(uid_t uid, int out, const char *refused) {
  pid_t pid = fork();
  if (pid == 0) {
    sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
    if (setgid(uid) != 0 || setuid(uid) != 0) _exit(2);
    sfc_status st;
    sfc_error err;
    sfc_generator *g = open_gen(&l, 941, 0, &st, &err);
    if (!g) {
      if (refused && st == SFC_STATE_ERROR && strstr(err.message, refused))
        _exit(3);
      fprintf(stderr, "uid %d: %s\n", (int)uid, err.message);
      _exit(4);
    }
    uint64_t id = 0;
    for (int i = 0; i < 1000; i++)
      if (sfc_next(g, &id, &err) != SFC_OK) _exit(5);
    sfc_generator_free(g);
    if (write(out, &id, sizeof id) != sizeof id) _exit(6);
    _exit(0);
  }
  return check_wait_pid(pid);
}

/* Sets the mode of uid 65533's records of worker 941 in /dev/shm; returns
 * how many it set. */
static int chmod_941(mode_t mode) {
  const char *prefix = "snowflake-c-80000000003ff000.00000000003ad000.";
  DIR *d = opendir("/dev/shm");
  int n = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (!strncmp(e->d_name, prefix, strlen(prefix)) && len > 7 &&
        !strcmp(e->d_name + len - 7, ".u65533") &&
        fchmodat(dirfd(d), e->d_name, mode, 0) == 0)
      n++;
  }
  closedir(d);
  return n;
}

/* Another user's record that this user cannot read (a holder that made it
 * private): refused, naming its owner, never started blind to its mark;
 * once readable again, the successor goes on after it (root only). */
static void unreadable_record(void) {
  if (geteuid() != 0) return;
  int ids[2];
  if (pipe(ids) != 0) return;
  CHECK(as_user_941(65533, ids[1], NULL) == 0, "uid 65533's generator");
  CHECK(chmod_941(0600) > 0, "uid 65533's record made private");
  CHECK(as_user_941(65534, ids[1], "belongs to uid 65533") == 3,
        "uid 65534 is refused, naming the record's owner");
  chmod_941(0644);
  CHECK(as_user_941(65534, ids[1], NULL) == 0, "uid 65534, once readable");
  uint64_t first = 0, second = 0;
  CHECK(read(ids[0], &first, sizeof first) == sizeof first &&
            read(ids[0], &second, sizeof second) == sizeof second,
        "both issued");
  close(ids[0]);
  close(ids[1]);
  CHECK(second > first, "the successor went on after the holder's IDs");
}

#if defined(__linux__)
#include <sched.h>

/* Two users, each in a network namespace of its own (so that neither sees
 * the other's claim name) sharing /dev/shm, take one value at the same
 * moment, again and again: exactly one starts each time (never both; and
 * never neither: the records rank two that take them at once — a window
 * this rarely meets, which the simulator's case seed-778022 forces). Root
 * only (unshare, setuid). */
static void racing_namespaces(void) {
  if (geteuid() != 0 || unshare(0) != 0) return;
  sfc_layout l = layout("time:41@1ms,worker:10,seq:12");
  int both = 0, neither = 0, rounds = 30;
  for (int round = 0; round < rounds; round++) {
    int go[2], said[2], done[2];
    if (pipe(go) != 0 || pipe(said) != 0 || pipe(done) != 0) return;
    pid_t pids[2];
    for (int k = 0; k < 2; k++) {
      pids[k] = fork();
      if (pids[k] == 0) {
        close(go[1]);
        close(said[0]);
        close(done[1]);
        uid_t uid = k ? 65534 : 65533;
        if (unshare(CLONE_NEWNET) != 0 || setgid(uid) != 0 || setuid(uid) != 0)
          _exit(2);
        char c;
        if (read(go[0], &c, 1) != 0) _exit(3); /* closed: go */
        sfc_status st;
        sfc_error err;
        sfc_generator *g = open_gen(&l, 31, 0, &st, &err);
        c = g ? 'y' : st == SFC_WORKER_UNAVAILABLE ? 'n' : 'e';
        if (write(said[1], &c, 1) != 1) _exit(4);
        /* Held until both have said: a started one is live meanwhile. */
        if (read(done[0], &c, 1) != 0) _exit(5);
        sfc_generator_free(g);
        _exit(0);
      }
    }
    close(said[1]);
    close(go[0]);
    close(done[0]);
    close(go[1]); /* both go at once */
    char a = 0, b = 0;
    CHECK(read(said[0], &a, 1) == 1 && read(said[0], &b, 1) == 1,
          "round %d: both said", round);
    close(said[0]);
    close(done[1]); /* both let go */
    for (int k = 0; k < 2; k++)
      CHECK(check_wait_pid(pids[k]) == 0, "round %d: process %d", round, k);
    CHECK(a != 'e' && b != 'e', "round %d: no error but a refusal", round);
    both += a == 'y' && b == 'y';
    neither += a == 'n' && b == 'n';
  }
  CHECK(both == 0, "two users took one value at once %d times of %d", both,
        rounds);
  CHECK(neither == 0, "both refused each other %d times of %d", neither,
        rounds);
}
#else
static void racing_namespaces(void) {}
#endif
#endif

int main(void) {
  same_value_taken_over();
  field_names_do_not_split();
  options_do_not_split();
  /* 1 ms ticks: the generator leaves once the clock passed its last tick;
   * 10 ms ticks: it hands its last tick over to the next holder. */
  quick_reuse("time:41@1ms,worker:10,seq:12");
  quick_reuse("time:40@10ms,worker:10,seq:12");
  hand_over_ahead();
  caller_time_hand_over(false, 5);
  caller_time_hand_over(true, 6);
  long_names();
#if !defined(_WIN32)
  fork_drops_claim();
#if defined(__linux__)
  fork_while_churning();
#endif
  descriptors_run_out();
#if defined(__linux__)
  record_settled_when_whole();
  file_claims();
#endif
  other_user();
  umask_077();
  unreadable_record();
  racing_namespaces();
#endif
  return check_summary();
}
