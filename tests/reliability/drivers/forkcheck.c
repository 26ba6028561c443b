/* Fork after use: a forked child must never repeat its parent's IDs.
 *
 * Usage: forkcheck static|pool|busy STATE_DIR
 *   static  a generator with a static node value, used, then fork: the child
 *           gets GeneratorForked from every entry (and no ID); the parent
 *           carries on
 *   pool    worker=auto in STATE_DIR, used, then 4 children (and a
 *           grandchild) keep using it: each takes a fresh worker value; all
 *           IDs unique, the six processes (alive at once) on six values
 *   busy    a thread generates without pause while the main thread forks 20
 *           times (pool mode): no child deadlocks on a lock held across
 *           fork, all IDs unique
 * Children report their IDs through a file each. */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[4096];
/* In pool mode the children hold their worker values until the parent has
 * heard from all of them, so that all of them are alive at once: -1 in the
 * other modes. */
static int release_fd = -1;

static sfc_generator *make(bool pool) {
  sfc_layout l;
  sfc_error err;
  row_layout("default", &l);
  sfc_node_value node[] = {
      {"worker", pool ? 0 : 11, pool ? SFC_SOURCE_POOL : SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_text(&opts, SFC_OPTION_STATE_DIR, pool ? dir : NULL);
  sfc_generator *g;
  must(sfc_generator_new(&l, &opts, &g, &err), &err, "generator");
  return g;
}

static uint64_t worker_of(sfc_generator *g) {
  sfc_stats s;
  sfc_generator_stats(g, &s);
  return stats_node(&s, 0);
}

/* In a child: generate n IDs and write them, with the worker value first,
 * to <dir>/child-<pid>.ids; then, `generations` times, fork a grandchild
 * that does the same with the generator it inherits. Exits 0 on success, 3
 * on an error. */
_Noreturn static void child_generate(sfc_generator *g, size_t n,
                                     int generations) {
  uint64_t *v = malloc((n + 1) * sizeof *v);
  for (;;) {
    alarm(20); /* a deadlock ends as a failure, not a hang */
    size_t got = 0;
    sfc_error err;
    sfc_status st = sfc_next_ids(g, v + 1, n, &got, &err);
    if (st != SFC_OK) {
      fprintf(stderr, "child %d: %s: %s\n", getpid(), sfc_status_name(st),
              err.message);
      _exit(3);
    }
    v[0] = worker_of(g);
    char path[4200];
    snprintf(path, sizeof path, "%s/child-%d.ids", dir, getpid());
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(v, sizeof *v, n + 1, f) != n + 1 || fclose(f) != 0)
      _exit(4);
    if (generations-- == 0) {
      char c;
      while (release_fd >= 0 && read(release_fd, &c, 1) > 0)
        ;
      break;
    }
    pid_t p = fork();
    if (p != 0) {
      int status;
      waitpid(p, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) _exit(3);
      break;
    }
  }
  free(v);
  sfc_generator_free(g);
  _exit(0);
}

static int count_reports(void) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "ls %s/child-*.ids 2>/dev/null | wc -l", dir);
  FILE *ls = popen(cmd, "r");
  int n = 0;
  if (ls) {
    if (fscanf(ls, "%d", &n) != 1) n = 0;
    pclose(ls);
  }
  return n;
}

/* Reads every child's file into `all`; returns the worker values seen. */
static size_t read_children(ids *all, uint64_t *workers, size_t max) {
  size_t count = 0;
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "ls %s/child-*.ids 2>/dev/null", dir);
  FILE *ls = popen(cmd, "r");
  char path[4200];
  while (ls && fgets(path, sizeof path, ls)) {
    path[strcspn(path, "\n")] = '\0';
    FILE *f = fopen(path, "rb");
    uint64_t v;
    bool first = true;
    while (f && fread(&v, sizeof v, 1, f) == 1) {
      if (first && count < max) workers[count++] = v;
      if (!first) ids_push(all, v);
      first = false;
    }
    if (f) fclose(f);
    unlink(path);
  }
  if (ls) pclose(ls);
  return count;
}

static void wait_children(result *r, int n) {
  for (int i = 0; i < n; i++) {
    int status;
    pid_t p = wait(&status);
    if (p < 0) break;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      r->unexpected++;
      result_fail(r, "child %d: %s %d", p,
                  WIFSIGNALED(status) ? "signal" : "exit",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
  }
}

static void static_node(result *r) {
  sfc_generator *g = make(false);
  ids all = {0};
  uint64_t v[1000];
  sfc_error err;
  must(sfc_next_ids(g, v, 1000, NULL, &err), &err, "parent");
  ids_append(&all, v, 1000);
  int pipefd[2];
  if (pipe(pipefd) != 0) exit(99);
  pid_t p = fork();
  if (p == 0) {
    /* Every entry refuses; report what each answered. */
    close(pipefd[0]);
    alarm(20);
    uint64_t id;
    int64_t wait;
    size_t filled = 7;
    sfc_status st[5];
    st[0] = sfc_next(g, &id, &err);
    int said = strstr(err.message, "fork") != NULL;
    st[1] = sfc_next_ids(g, v, 10, &filled, &err);
    st[2] = sfc_next_at(g, sfc_generator_now_us(g), &id, &wait, &err);
    st[3] = sfc_next_now(g, &id, &wait, &err);
    st[4] = sfc_next_ids_now(g, v, 10, NULL, &wait, &err);
    int msg[7] = {st[0], st[1], st[2], st[3], st[4], (int)filled, said};
    if (write(pipefd[1], msg, sizeof msg) != sizeof msg) _exit(4);
    _exit(0);
  }
  close(pipefd[1]);
  int msg[7] = {0};
  ssize_t k = read(pipefd[0], msg, sizeof msg);
  close(pipefd[0]);
  wait_children(r, 1);
  r->faults++;
  if (k != sizeof msg) {
    result_fail(r, "no report from the child");
  } else {
    for (int i = 0; i < 5; i++) {
      if (msg[i] == SFC_GENERATOR_FORKED)
        r->expected++;
      else {
        r->unexpected += msg[i] != SFC_OK;
        result_fail(r, "child entry %d answered %s", i,
                    sfc_status_name((sfc_status)msg[i]));
      }
    }
    if (msg[5] != 0) result_fail(r, "the child's batch filled %d", msg[5]);
    if (!msg[6]) result_fail(r, "the message does not mention fork");
  }
  must(sfc_next_ids(g, v, 1000, NULL, &err), &err, "parent after fork");
  ids_append(&all, v, 1000);
  r->ids += all.n;
  r->dups += ids_dups(all.v, all.n);
  free(all.v);
  sfc_generator_free(g);
}

static void pool_node(result *r) {
  sfc_generator *g = make(true);
  ids all = {0};
  uint64_t v[5000];
  sfc_error err;
  must(sfc_next_ids(g, v, 5000, NULL, &err), &err, "parent");
  ids_append(&all, v, 5000);
  const uint64_t parent_worker = worker_of(g);
  int release[2];
  if (pipe(release) != 0) exit(99);
  for (int i = 0; i < 4; i++) {
    pid_t p = fork();
    if (p == 0) {
      close(release[1]);
      release_fd = release[0];
      child_generate(g, 20000, i == 0 ? 1 : 0);
    }
    r->faults++;
  }
  close(release[0]);
  r->faults++; /* the grandchild's fork */
  must(sfc_next_ids(g, v, 5000, NULL, &err), &err, "parent after fork");
  ids_append(&all, v, 5000);
  /* All five reports written: every child (and the grandchild) is alive
   * and holds its value. Then let them go. */
  for (int waited = 0; waited < 2000 && count_reports() < 5; waited++)
    usleep(10000);
  close(release[1]);
  wait_children(r, 4);
  uint64_t workers[16];
  size_t nw = read_children(&all, workers, 16);
  if (nw != 5) result_fail(r, "%zu child reports, not 5", nw);
  if (worker_of(g) != parent_worker)
    result_fail(r, "the parent's worker changed");
  for (size_t i = 0; i < nw; i++) {
    if (workers[i] == parent_worker)
      result_fail(r, "a child kept the parent's worker");
    for (size_t j = 0; j < i; j++)
      if (workers[i] == workers[j])
        result_fail(r, "two children on worker %" PRIu64, workers[i]);
  }
  r->ids += all.n;
  r->dups += ids_dups(all.v, all.n);
  free(all.v);
  sfc_generator_free(g);
}

static volatile int stop;
/* The busy thread's IDs go to room allocated before it starts: a thread
 * inside malloc at the moment of fork would leave some allocators (that of
 * AddressSanitizer among them) locked in the child. Past that room, IDs are
 * generated but not kept. */
static uint64_t *busy_v;
static size_t busy_n, busy_cap, busy_unkept;

static void *busy_thread(void *arg) {
  sfc_generator *g = arg;
  uint64_t scratch[64];
  sfc_error err;
  while (!stop) {
    size_t got = 0;
    uint64_t *dst = busy_n + 64 <= busy_cap ? busy_v + busy_n : scratch;
    if (sfc_next_ids(g, dst, 64, &got, &err) != SFC_OK) {
      fprintf(stderr, "busy thread: %s\n", err.message);
      exit(99);
    }
    if (dst == scratch)
      busy_unkept += got;
    else
      busy_n += got;
  }
  return NULL;
}

static void busy_fork(result *r) {
  sfc_generator *g = make(true);
  busy_cap = (size_t)16 << 20;
  busy_v = malloc(busy_cap * sizeof *busy_v);
  if (!busy_v) exit(99);
  pthread_t th;
  pthread_create(&th, NULL, busy_thread, g);
  for (int i = 0; i < 20; i++) {
    pid_t p = fork();
    if (p == 0) child_generate(g, 2000, 0);
    r->faults++;
    /* Reap as we go so that the pool never fills. */
    wait_children(r, 1);
  }
  stop = 1;
  pthread_join(th, NULL);
  ids all = {0};
  uint64_t workers[32];
  size_t nw = read_children(&all, workers, 32);
  if (nw != 20) result_fail(r, "%zu child reports, not 20", nw);
  ids_append(&all, busy_v, busy_n);
  r->ids += all.n;
  r->dups += ids_dups(all.v, all.n);
  if (busy_unkept)
    snprintf(r->note, sizeof r->note,
             "%zu more IDs of the busy thread not kept", busy_unkept);
  free(all.v);
  free(busy_v);
  sfc_generator_free(g);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: forkcheck static|pool|busy STATE_DIR\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "%s", argv[2]);
  result r = {.ok = true};
  if (!strcmp(argv[1], "static"))
    static_node(&r);
  else if (!strcmp(argv[1], "pool"))
    pool_node(&r);
  else if (!strcmp(argv[1], "busy"))
    busy_fork(&r);
  else
    return 2;
  if (r.dups) result_fail(&r, "%" PRIu64 " duplicate IDs", r.dups);
  result_print(&r);
  return r.ok ? 0 : 1;
}
