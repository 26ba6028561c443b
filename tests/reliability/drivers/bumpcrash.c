/* A crash right after a clock bump, with the bumping thread stalled at its
 * worst moment: after the state file names the new clock value, before the
 * state word switches to it. The keeper must not persist the old value
 * meanwhile; if it did, the restart below would bump to the same new value
 * again and repeat every ID issued under it.
 *
 *   bumpcrash DIR
 *
 * A child process issues IDs at the real clock, then at a clock 200 ms
 * behind (a bump from clock value 0 to 1, stalled 1.2 s through the core's
 * test hook: longer than a keeper cycle of the default 1 s reserve), then
 * 20000 IDs under clock value 1, and dies without closing (a crash). The
 * parent restarts on the same state directory, 200 ms behind again: its IDs
 * must not repeat the child's. */
#include "common.h"

#include <sys/wait.h>
#include <unistd.h>

/* The core's test hook (internal). */
extern void (*sfc_test_hook)(const char *point);

enum { N = 20000 };

static void stall(const char *point) {
  if (!strstr(point, "bump_clock")) return;
  struct timespec ts = {1, 200000000};
  nanosleep(&ts, NULL);
}

static sfc_generator *open_gen(const char *dir) {
  sfc_layout l;
  sfc_error err;
  row_layout("default", &l);
  sfc_node_value node[] = {{"worker", 4, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_text(&opts, SFC_OPTION_STATE_DIR, dir);
  set_rollback(&opts, SFC_ROLLBACK_CLOCK);
  set_ms(&opts, SFC_OPTION_MAX_WAIT, 0);
  sfc_generator *g = NULL;
  must(sfc_generator_new(&l, &opts, &g, &err), &err, "generator");
  return g;
}

/* n IDs at injected readings from `from_us` on, waiting for the keeper when
 * the mark asks for it. */
static size_t issue(sfc_generator *g, int64_t from_us, uint64_t *out,
                    size_t n) {
  size_t done = 0;
  int64_t now = from_us;
  while (done < n) {
    size_t got = 0;
    int64_t wait = 0;
    sfc_error err;
    sfc_status st =
        sfc_next_ids_at(g, now, out + done, n - done, &got, &wait, &err);
    done += got;
    if (st == SFC_WAIT) {
      now += 1000;
      sfc_pause(wait < 1000 ? wait : 1000);
    } else if (st != SFC_OK) {
      fprintf(stderr, "issue: %s\n", err.message);
      break;
    }
  }
  return done;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bumpcrash DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  result r = {.ok = true};
  uint64_t *ids = malloc(3 * N * sizeof *ids);
  int fds[2];
  if (!ids || pipe(fds) != 0) return 99;
  const int64_t behind = wall_us() - 200000;
  pid_t pid = fork();
  if (pid == 0) {
    sfc_generator *g = open_gen(dir);
    size_t n = issue(g, wall_us(), ids, N);
    sfc_test_hook = stall;
    n += issue(g, behind, ids + n, 2 * N - n);
    ssize_t w = write(fds[1], ids, n * sizeof *ids);
    _exit(w == (ssize_t)(n * sizeof *ids) ? 0 : 1); /* no close: a crash */
  }
  close(fds[1]);
  size_t got = 0;
  for (ssize_t k;
       (k = read(fds[0], (char *)ids + got, 2 * N * sizeof *ids - got)) > 0;)
    got += (size_t)k;
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  size_t first = got / sizeof *ids;
  r.faults = 2; /* the stall and the crash */
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || first != 2 * N)
    result_fail(&r, "the crashing run issued %zu of %d IDs", first, 2 * N);

  sfc_generator *g = open_gen(dir);
  size_t second = issue(g, behind, ids + first, N);
  print_stats("restart", g);
  sfc_generator_free(g);
  if (second != N) result_fail(&r, "the restart issued %zu of %d", second, N);
  r.ids = first + second;
  r.dups = ids_dups(ids, r.ids);
  if (r.dups)
    result_fail(&r, "%" PRIu64 " IDs repeated after the restart", r.dups);
  if (r.ok)
    snprintf(r.note, sizeof r.note,
             "bump stalled 1.2 s before the word switched, crash, restart "
             "behind the mark");
  result_print(&r);
  free(ids);
  return r.ok ? 0 : 1;
}
