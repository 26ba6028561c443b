/* serve: the ID service's command and lifecycle — its options, the
 * generator, one line on standard error at start and at stop, SIGTERM and
 * SIGINT, the drain. The HTTP side is in http.c, routes.c and metrics.c
 * (service.h), built only with libmicrohttpd. */
#if defined(SNOWFLAKE_C_SERVE)
#define _POSIX_C_SOURCE 200809L
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#endif

#include "cli.h"

#include <stdio.h>

#if !defined(SNOWFLAKE_C_SERVE)

int cmd_serve(cli *c, int argc, char **argv) {
  (void)c, (void)argc, (void)argv;
  fputs(PROG ": this snowflake-c was built without the service: install "
             "libmicrohttpd (libmicrohttpd-dev) and build again\n",
        stderr);
  return 1;
}

#else

#include "service.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long the requests in flight get to finish after SIGTERM. */
#define DRAIN_SECONDS 10

/* "worker=3 (explicit), datacenter=1 (env)" of the generator's stats. */
static void node_text(const sfc_generator *g, char *buf, size_t cap) {
  sfc_stats st;
  sfc_generator_stats(g, &st);
  buf[0] = '\0';
  const char *name;
  sfc_value node, source;
  size_t j = 0;
  for (; sfc_stats_entry(&st, SFC_STAT_NODE, j, &name, &node) &&
         sfc_stats_entry(&st, SFC_STAT_NODE_SOURCES, j, &name, &source);
       j++) {
    char one[96];
    snprintf(one, sizeof one, "%s%s=%" PRIu64 " (%s)", j ? ", " : "", name,
             node.u, source.text);
    append(buf, cap, one);
  }
  if (!j) append(buf, cap, "none");
}

/* One thread a CPU this process may run on (its affinity: a container's
 * cpuset, taskset), at most 16. */
static unsigned threads_to_use(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef CPU_COUNT
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) n = CPU_COUNT(&cpus);
#endif
  return n < 1 ? 1 : n > 16 ? 16 : (unsigned)n;
}

/* Waits for SIGTERM or SIGINT (blocked in every thread), and names it. */
static const char *wait_for_stop(const sigset_t *stop) {
  int sig = 0;
  while (sigwait(stop, &sig) != 0)
    ;
  return sig == SIGINT ? "SIGINT" : "SIGTERM";
}

/* Lets the requests in flight finish, for up to DRAIN_SECONDS. */
static void drain(service *s) {
  struct timespec tick = {0, 10 * 1000 * 1000};
  for (int i = 0; i < DRAIN_SECONDS * 100 && atomic_load(&s->in_flight) > 0;
       i++)
    nanosleep(&tick, NULL);
}

int cmd_serve(cli *c, int argc, char **argv) {
  const command *cmd = find_command("serve");
  (void)argv;
  if (argc) return usage_error(cmd, "serve takes no arguments");
  if (c->max_count < 1)
    return usage_error(cmd, "--max-count takes a whole number from 1");
  if (c->max_connections < 1 || c->max_connections > 1000000)
    return usage_error(cmd, "--max-connections takes a whole number from 1 "
                            "to 1000000");
  if (c->idle_timeout > 86400)
    return usage_error(cmd, "--idle-timeout takes seconds, 0 (none) to 86400");
  const char *token = c->token ? c->token : getenv("SNOWFLAKE_TOKEN");
  if (token && !*token) token = NULL;

  /* SIGTERM and SIGINT wait for sigwait, in every thread made from here
   * on; a peer gone mid-reply is an error of the write, not a signal. */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  signal(SIGPIPE, SIG_IGN);

  service *s = calloc(1, sizeof *s);
  if (!s) {
    fputs(PROG ": out of memory\n", stderr);
    return 1;
  }
  int rc = make_generator(c, cmd, &s->gen);
  if (rc) {
    free(s);
    return rc;
  }
  s->layout = sfc_generator_layout(s->gen);
  s->token = token;
  s->token_len = token ? strlen(token) : 0;
  s->max_count = (uint64_t)c->max_count;
  s->max_connections = (unsigned)c->max_connections;
  s->idle_timeout_s = (unsigned)c->idle_timeout;

  char bound[128], why[SFC_MESSAGE_MAX], spec[SFC_SPEC_MAX], node[512];
  http_server *h =
      http_start(s, c->listen ? c->listen : "127.0.0.1:8080", threads_to_use(),
                 bound, sizeof bound, why, sizeof why);
  if (!h) {
    fprintf(stderr, PROG ": serve: %s\n", why);
    generator_free(s->gen);
    free(s);
    return 1;
  }
  sfc_layout_spec(s->layout, spec, sizeof spec);
  node_text(s->gen, node, sizeof node);
  fprintf(
      stderr,
      PROG ": serving on http://%s: layout %s, epoch %" PRId64 ", node %s%s\n",
      bound, spec, s->layout->epoch_ms, node, token ? ", token required" : "");

  const char *sig = wait_for_stop(&stop);
  http_quiesce(h);
  atomic_store(&s->stopping, true);
  drain(s);
  long left = atomic_load(&s->in_flight);
  http_stop(h);
  generator_free(s->gen); /* its hand-over written, its lease given back */
  fprintf(stderr,
          PROG ": stopped on %s: %" PRIu64 " IDs served, %ld requests cut "
               "short\n",
          sig, (uint64_t)atomic_load(&s->m.ids_served), left);
  free(s);
  return 0;
}

#endif
