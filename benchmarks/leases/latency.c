/* Round trips of the lease protocol on a real server: N times, a lease is
 * acquired (one statement), renewed once it is due (one statement) and
 * released (one statement), each statement timed from the moment the core
 * hands it over to the moment its row is back in the core; then the
 * median and the 99th percentile of each, one line per step:
 *
 *   latency CONNINFO N   ->   "acquire 0.412 0.901" (ms)
 *
 * The host is the CLI's way (libpq, text parameters, one row back). */
#define _POSIX_C_SOURCE 200809L
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snowflake_c.h"

#include "../../tests/c/set_options.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *what, const char *why) {
  fprintf(stderr, "latency: %s: %s\n", what, why);
  exit(1);
}

/* Runs q, hands its row to the core; the time it took (ms). */
static double run(PGconn *db, sfc_lease *lease, const sfc_lease_query *q) {
  const double t0 = now_ms();
  PGresult *r =
      PQexecParams(db, q->sql, q->nparams, NULL, q->params, NULL, NULL, 0);
  if (PQresultStatus(r) != PGRES_TUPLES_OK)
    die("statement", PQresultErrorMessage(r));
  const char *row[8] = {NULL};
  const int ncols = PQnfields(r) < 8 ? PQnfields(r) : 8;
  for (int i = 0; PQntuples(r) > 0 && i < ncols; i++)
    row[i] = PQgetisnull(r, 0, i) ? NULL : PQgetvalue(r, 0, i);
  sfc_error err;
  if (sfc_lease_done(lease, q, PQntuples(r) ? row : NULL, ncols, &err) !=
      SFC_OK)
    die("the core", err.message);
  PQclear(r);
  return now_ms() - t0;
}

static void sleep_us(int64_t us) {
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void report(const char *step, double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, by_value);
  printf("%s %.3f %.3f\n", step, t[n / 2], t[(n * 99) / 100]);
}

int main(int argc, char **argv) {
  if (argc != 3) die("usage", "latency CONNINFO N");
  const int n = atoi(argv[2]);
  if (n < 1) die("usage", "N must be 1 or more");
  PGconn *db = PQconnectdb(argv[1]);
  if (PQstatus(db) != CONNECTION_OK) die("connect", PQerrorMessage(db));
  PQclear(PQexec(db, sfc_lease_table_sql()));
  double *acquire = calloc((size_t)n, sizeof *acquire),
         *renew = calloc((size_t)n, sizeof *renew),
         *release = calloc((size_t)n, sizeof *release);
  if (!acquire || !renew || !release) die("memory", "out of memory");
  sfc_layout layout;
  sfc_error err;
  if (sfc_layout_preset("default", &layout, &err) != SFC_OK)
    die("layout", err.message);
  for (int i = 0; i < n; i++) {
    sfc_node_value node = {"worker", 0, SFC_SOURCE_LEASE};
    sfc_options opts;
    sfc_options_init(&opts);
    sfc_options_set_nodes(&opts, &node, 1);
    set_bool(&opts, SFC_OPTION_GUARD,
             false); /* the lease is the only link measured */
    set_ms(&opts, SFC_OPTION_LEASE_DURATION,
           1000); /* the shortest: renewed at 333 ms */
    sfc_lease *lease;
    if (sfc_lease_new(&layout, &opts, &lease, &err) != SFC_OK)
      die("lease", err.message);
    sfc_lease_query q;
    int64_t wait_us = 0;
    while (sfc_lease_due(lease, &q, &wait_us) != SFC_LEASE_ACQUIRE)
      sleep_us(wait_us);
    acquire[i] = run(db, lease, &q);
    if (sfc_lease_acquired(lease, &err) != SFC_OK) die("acquire", err.message);
    sfc_generator *gen;
    if (sfc_lease_generator_new(lease, &opts, &gen, &err) != SFC_OK)
      die("generator", err.message);
    while (sfc_lease_due(lease, &q, &wait_us) != SFC_LEASE_RENEW)
      sleep_us(wait_us);
    renew[i] = run(db, lease, &q);
    sfc_generator_close(gen);
    if (!sfc_lease_release(lease, &q)) die("release", "nothing to release");
    release[i] = run(db, lease, &q);
    sfc_generator_free(gen);
    sfc_lease_free(lease);
  }
  report("acquire", acquire, n);
  report("renew", renew, n);
  report("release", release, n);
  PQfinish(db);
  return 0;
}
