/* The host-wide guard across fork: a forked child of a guarded generator
 * never takes its parent's value, the parent's value stays guarded once
 * the child is gone, and a child that lives on never keeps it.
 *
 * Usage: guardfork children
 *   The parent holds worker 21 of the default preset's fields (on the
 *   row's epoch, RELIABILITY_EPOCH_MS), uses it, and forks. In the child:
 *     - the inherited generator answers GeneratorForked, and no ID;
 *     - a new generator with worker 21 is refused with WorkerUnavailable
 *       naming the parent's pid, again after the child has freed the
 *       inherited generator (its copy of the claim must not release the
 *       parent's);
 *     - a new generator with another value (22, then 23 in the second
 *       child) starts and issues IDs.
 *   In the parent, after the child has exited: worker 21 is still refused
 *   (in this process and in a second child), the parent's generator goes
 *   on, and once it is freed worker 21 can be taken again at once (no IDs
 *   are drawn from it: a generator re-created within the tick of the last
 *   one's last ID would repeat them, having no state_dir to remember it).
 *
 * Usage: guardfork helper IDS_FILE [STATE_DIR]
 *   The parent holds worker 21 (in STATE_DIR if given), writes 5000 of its
 *   IDs to IDS_FILE, and forks a helper that never uses the generator (as a
 *   server forks a worker process or a shell command). The helper sleeps
 *   30 s with its standard streams on /dev/null; the parent prints
 *   "HELPER <pid>", frees its generator and exits: the value must be free
 *   for the next process at once, the helper still alive.
 * Prints the RESULT line of tests/reliability/run. */
#include "common.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

enum { HELD = 21, CHILD_IDS = 2000 };

static const char *state_dir;

static sfc_status make_at(int64_t worker, bool shifted, sfc_generator **g,
                          sfc_error *err) {
  sfc_layout l;
  row_layout("default", &l);
  l.epoch_ms += shifted;
  sfc_node_value node[] = {{"worker", worker, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_text(&opts, SFC_OPTION_STATE_DIR, state_dir);
  return sfc_generator_new(&l, &opts, g, err);
}

static sfc_status make(int64_t worker, sfc_generator **g, sfc_error *err) {
  return make_at(worker, false, g, err);
}

/* A generator with the held value must be refused, naming `holder`. In the
 * holder's own process the same generator made again would take the value
 * over: there `shifted` asks for the same integers 1 ms of epoch later,
 * which is refused. */
static bool refused(long holder, bool shifted) {
  sfc_generator *g = NULL;
  sfc_error err;
  sfc_status st = make_at(HELD, shifted, &g, &err);
  char by[48];
  snprintf(by, sizeof by, "live process %ld", holder);
  if (st == SFC_OK) sfc_generator_free(g);
  if (st != SFC_WORKER_UNAVAILABLE || !strstr(err.message, by)) {
    fprintf(stderr, "%d: worker %d: %s: %s\n", getpid(), HELD,
            sfc_status_name(st), st == SFC_OK ? "started" : err.message);
    return false;
  }
  return true;
}

/* What a child saw, sent to the parent through a pipe, then its IDs. */
typedef struct report {
  int inherited;   /* status of next_ids on the inherited generator */
  size_t filled;   /* IDs it wrote anyway */
  bool refused[2]; /* worker HELD refused, before and after the free */
  int other;       /* status creating the other worker */
  uint32_t n;      /* IDs of the other worker that follow */
} report;

_Noreturn static void child(sfc_generator *inherited, long parent,
                            int64_t other, int out) {
  alarm(20); /* a hang ends as a failure */
  report rep = {0};
  uint64_t v[CHILD_IDS];
  sfc_error err;
  rep.inherited = sfc_next_ids(inherited, v, 10, &rep.filled, &err);
  rep.refused[0] = refused(parent, false);
  sfc_generator_free(inherited);
  rep.refused[1] = refused(parent, false);
  sfc_generator *g = NULL;
  rep.other = make(other, &g, &err);
  if (rep.other == SFC_OK &&
      sfc_next_ids(g, v, CHILD_IDS, NULL, &err) == SFC_OK)
    rep.n = CHILD_IDS;
  sfc_generator_free(g);
  if (write(out, &rep, sizeof rep) != sizeof rep ||
      write(out, v, rep.n * sizeof *v) != (ssize_t)(rep.n * sizeof *v))
    _exit(4);
  _exit(0);
}

/* Forks a child of `g` that takes `other` too; reads its report and IDs
 * into `all`. */
static void fork_child(result *r, sfc_generator *g, int64_t other, ids *all) {
  int pipefd[2];
  if (pipe(pipefd) != 0) exit(99);
  pid_t p = fork();
  if (p == 0) {
    close(pipefd[0]);
    child(g, (long)getppid(), other, pipefd[1]);
  }
  close(pipefd[1]);
  r->faults++;
  report rep;
  uint64_t v[CHILD_IDS];
  FILE *in = fdopen(pipefd[0], "rb");
  bool got = in && fread(&rep, sizeof rep, 1, in) == 1 && rep.n <= CHILD_IDS &&
             fread(v, sizeof *v, rep.n, in) == rep.n;
  if (in) fclose(in);
  int status;
  waitpid(p, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !got) {
    r->unexpected++;
    result_fail(r, "child %d: no report (status %d)", p, status);
    return;
  }
  if (rep.inherited == SFC_GENERATOR_FORKED && rep.filled == 0)
    r->expected++;
  else
    result_fail(r, "the inherited generator answered %s with %zu IDs",
                sfc_status_name((sfc_status)rep.inherited), rep.filled);
  for (int i = 0; i < 2; i++) {
    if (rep.refused[i])
      r->expected++;
    else
      result_fail(r, "the child took the parent's worker %d (%s free)", HELD,
                  i ? "after" : "before");
  }
  if (rep.other != SFC_OK || rep.n != CHILD_IDS) {
    r->unexpected++;
    result_fail(r, "worker %lld in the child: %s", (long long)other,
                sfc_status_name((sfc_status)rep.other));
  }
  ids_append(all, v, rep.n);
}

/* The parent's generator of HELD, guarded, and its first n IDs in v. */
static sfc_generator *guarded_parent(result *r, uint64_t *v, size_t n) {
  sfc_generator *g;
  sfc_error err;
  must(make(HELD, &g, &err), &err, "parent");
  sfc_stats s;
  sfc_generator_stats(g, &s);
  if (strncmp(sfc_stats_text(&s, SFC_STAT_GUARD), "held: ", 6) != 0)
    result_fail(r, "the parent is not guarded: %s",
                sfc_stats_text(&s, SFC_STAT_GUARD));
  must(sfc_next_ids(g, v, n, NULL, &err), &err, "parent");
  return g;
}

/* A helper forked off a guarded generator that it never uses; the parent
 * frees the generator and exits while the helper lives on. */
static int helper(const char *ids_path) {
  result r = {.ok = true};
  uint64_t v[5000];
  sfc_generator *g = guarded_parent(&r, v, 5000);
  FILE *f = fopen(ids_path, "w");
  if (!f) {
    perror(ids_path);
    return 99;
  }
  for (size_t i = 0; i < 5000; i++)
    fprintf(f, "%" PRIu64 "\n", v[i]);
  fclose(f);
  fflush(NULL);
  pid_t p = fork();
  if (p < 0) return 99;
  if (p == 0) {
    /* Off the caller's pipes: it reads our output to the end. */
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; fd++)
      dup2(null, fd);
    sleep(30);
    _exit(0);
  }
  printf("HELPER %ld\n", (long)p);
  r.faults = 1;
  r.ids = 5000;
  sfc_generator_free(g);
  if (r.ok) snprintf(r.note, sizeof r.note, "helper %ld alive", (long)p);
  result_print(&r);
  return r.ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "helper")) {
    state_dir = argc == 4 ? argv[3] : NULL;
    return helper(argv[2]);
  }
  if (argc != 2 || strcmp(argv[1], "children") != 0) {
    fprintf(stderr,
            "usage: guardfork children | helper IDS_FILE [STATE_DIR]\n");
    return 2;
  }
  result r = {.ok = true};
  ids all = {0};
  uint64_t v[5000];
  sfc_error err;
  sfc_generator *g = guarded_parent(&r, v, 5000);
  ids_append(&all, v, 5000);

  fork_child(&r, g, 22, &all);
  /* The child is gone: the value is still the parent's. */
  r.faults++;
  if (refused((long)getpid(), true))
    r.expected++;
  else
    result_fail(&r, "worker %d free in the parent after the child", HELD);
  fork_child(&r, g, 23, &all);
  must(sfc_next_ids(g, v, 5000, NULL, &err), &err, "parent after the fork");
  ids_append(&all, v, 5000);
  sfc_generator_free(g);

  /* Released: free at once. */
  r.faults++;
  if (make(HELD, &g, &err) != SFC_OK) {
    r.unexpected++;
    result_fail(&r, "worker %d after free: %s", HELD, err.message);
  } else {
    sfc_generator_free(g);
  }
  r.ids = all.n;
  r.dups = ids_dups(all.v, all.n);
  if (r.dups) result_fail(&r, "%" PRIu64 " duplicate IDs", r.dups);
  if (r.ok) snprintf(r.note, sizeof r.note, "2 children, parent's value held");
  free(all.v);
  result_print(&r);
  return r.ok ? 0 : 1;
}
