/* The node value "lease" through libpq: the core's lease protocol
 * (sfc_lease_*) run against the PostgreSQL of --lease URL or
 * SNOWFLAKE_LEASE_URL — the acquire before the generator is made, the
 * renewals on a thread of their own, the release after it is closed — and
 * `snowflake-c lease init|sql`. Built with libpq only (-Dlease); without
 * it, a lease says how to get it. */
#if defined(SNOWFLAKE_C_LEASE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The node field given as "lease", on the command line or in its
 * environment variable: the core's rule. */
bool wants_lease(const cli *c, const sfc_options *opts) {
  return sfc_lease_wanted(&c->layout, opts);
}

static int lease_sql(void) {
  fputs(sfc_lease_table_sql(), stdout);
  return 0;
}

#if !defined(SNOWFLAKE_C_LEASE)

static int no_libpq(void) {
  fputs(PROG ": this snowflake-c was built without leases: install libpq "
             "(libpq-dev) and build again (meson -Dlease=enabled)\n",
        stderr);
  return 1;
}

int lease_generator(cli *c, const command *cmd, const sfc_options *opts,
                    sfc_generator **out) {
  (void)c, (void)cmd, (void)opts, (void)out;
  return no_libpq();
}

void generator_free(sfc_generator *g) {
  sfc_generator_free(g);
}

bool lease_ready(void) {
  return true;
}

void lease_print_stats(bool json) {
  (void)json;
}

bool lease_stats(sfc_lease_stats *out) {
  (void)out;
  return false;
}

int cmd_lease(cli *c, int argc, char **argv) {
  (void)c;
  if (argc == 1 && !strcmp(argv[0], "sql")) return lease_sql();
  return no_libpq();
}

#else

#include <libpq-fe.h>
#include <pthread.h>
#include <time.h>

/* The database: --lease URL, else SNOWFLAKE_LEASE_URL. */
static const char *lease_url(const cli *c) {
  const char *url = c->lease ? c->lease : getenv("SNOWFLAKE_LEASE_URL");
  return url && *url ? url : NULL;
}

/* The one lease of this process: its connection, its renewer. */
static struct {
  sfc_lease *lease;
  sfc_generator *gen;
  const char *url;
  PGconn *conn;
  pthread_t renewer;
  bool running;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  bool stopping;
} host = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* A connection that gives up within 2 s, and statements within a third of
 * the lease: a hung database must not hold the renewals back. */
static PGconn *connect_to(const char *url, int64_t lease_ms, char *why,
                          size_t cap) {
  char opts[64];
  snprintf(opts, sizeof opts, "-c statement_timeout=%lld",
           (long long)(lease_ms / 3));
  const char *keys[] = {"dbname", "connect_timeout", "options",
                        "application_name", NULL};
  const char *values[] = {url, "2", opts, "snowflake-c", NULL};
  PGconn *conn = PQconnectdbParams(keys, values, 1);
  if (PQstatus(conn) == CONNECTION_OK) return conn;
  snprintf(why, cap, "cannot connect to the lease database: %s",
           PQerrorMessage(conn));
  why[strcspn(why, "\n")] = '\0';
  PQfinish(conn);
  return NULL;
}

/* The host could not run q: the core retries it with backoff. SFC_WAIT,
 * the message in err. */
static sfc_status failed(const sfc_lease_query *q, const char *why,
                         sfc_error *err) {
  sfc_lease_failed(host.lease, q, why);
  err->status = SFC_WORKER_UNAVAILABLE;
  snprintf(err->message, sizeof err->message, "%s", why);
  return SFC_WAIT;
}

/* Runs q and hands its row to the core: its answer, or SFC_WAIT when the
 * database could not be reached. */
static sfc_status run(const sfc_lease_query *q, int64_t lease_ms,
                      sfc_error *err) {
  char why[SFC_MESSAGE_MAX] = "";
  if (host.conn && PQstatus(host.conn) != CONNECTION_OK) {
    PQfinish(host.conn);
    host.conn = NULL;
  }
  if (!host.conn) host.conn = connect_to(host.url, lease_ms, why, sizeof why);
  if (!host.conn) {
    return failed(q, why, err);
  }
  PGresult *r = PQexecParams(host.conn, q->sql, q->nparams, NULL, q->params,
                             NULL, NULL, 0);
  ExecStatusType s = PQresultStatus(r);
  if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
    snprintf(why, sizeof why, "the lease database refused: %s",
             PQresultErrorMessage(r));
    why[strcspn(why, "\n")] = '\0';
    PQclear(r);
    return failed(q, why, err);
  }
  const char *row[8] = {NULL};
  int ncols = PQnfields(r) < 8 ? PQnfields(r) : 8;
  const bool has = PQntuples(r) > 0;
  for (int i = 0; has && i < ncols; i++)
    row[i] = PQgetisnull(r, 0, i) ? NULL : PQgetvalue(r, 0, i);
  sfc_status st = sfc_lease_done(host.lease, q, has ? row : NULL, ncols, err);
  PQclear(r);
  return st;
}

static void sleep_us(int64_t us) {
  struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* Acquires within the core's time (a lost race is tried again at once, a
 * failed connection with backoff). */
static sfc_status acquire(int64_t lease_ms, sfc_error *err) {
  for (;;) {
    sfc_lease_query q;
    int64_t wait_us = 0;
    const bool ran =
        sfc_lease_due(host.lease, &q, &wait_us) == SFC_LEASE_ACQUIRE;
    if (ran) {
      const sfc_status st = run(&q, lease_ms, err);
      /* All values held is final; a failed connection is retried. */
      if (st != SFC_OK && st != SFC_WAIT) return st;
    }
    const sfc_status st = sfc_lease_acquired(host.lease, err);
    if (st != SFC_WAIT) return st;
    if (!ran) sleep_us(wait_us);
  }
}

/* Renews until told to stop, sleeping what the core says (a close wakes
 * it sooner). */
static void *renew_main(void *arg) {
  const int64_t lease_ms = *(const int64_t *)arg;
  pthread_mutex_lock(&host.lock);
  while (!host.stopping) {
    sfc_lease_query q;
    int64_t wait_us = 0;
    if (sfc_lease_due(host.lease, &q, &wait_us) != SFC_LEASE_IDLE) {
      pthread_mutex_unlock(&host.lock);
      sfc_error err;
      if (run(&q, lease_ms, &err) == SFC_LEASE_EXPIRED)
        fprintf(stderr, PROG ": lease: %s\n", err.message);
      pthread_mutex_lock(&host.lock);
      continue;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += (long)(wait_us * 1000);
    until.tv_sec += until.tv_nsec / 1000000000;
    until.tv_nsec %= 1000000000;
    pthread_cond_timedwait(&host.wake, &host.lock, &until);
  }
  pthread_mutex_unlock(&host.lock);
  return NULL;
}

int lease_generator(cli *c, const command *cmd, const sfc_options *opts,
                    sfc_generator **out) {
  static int64_t lease_ms;
  sfc_error err;
  host.url = lease_url(c);
  if (!host.url)
    return usage_error(cmd, "a node value 'lease' needs the database: give "
                            "--lease URL or SNOWFLAKE_LEASE_URL");
  if (sfc_lease_new(&c->layout, opts, &host.lease, &err) != SFC_OK)
    return fail(&err);
  sfc_lease_stats stats;
  sfc_lease_stats_get(host.lease, &stats);
  lease_ms = sfc_lease_stats_int(&stats, SFC_LEASE_STAT_DURATION_MS);
  sfc_status st = acquire(lease_ms, &err);
  if (st == SFC_OK) st = sfc_lease_generator_new(host.lease, opts, out, &err);
  if (st != SFC_OK) {
    /* A value taken but never used goes back at once. */
    sfc_lease_query q;
    sfc_error ignored;
    if (sfc_lease_release(host.lease, &q)) run(&q, lease_ms, &ignored);
    sfc_lease_free(host.lease);
    host.lease = NULL;
    if (host.conn) PQfinish(host.conn);
    host.conn = NULL;
    return fail(&err);
  }
  host.gen = *out;
  if (pthread_create(&host.renewer, NULL, renew_main, &lease_ms) == 0)
    host.running = true;
  return 0;
}

void generator_free(sfc_generator *g) {
  if (!host.lease || g != host.gen) {
    sfc_generator_free(g);
    return;
  }
  if (host.running) {
    pthread_mutex_lock(&host.lock);
    host.stopping = true;
    pthread_cond_signal(&host.wake);
    pthread_mutex_unlock(&host.lock);
    pthread_join(host.renewer, NULL);
  }
  sfc_generator_close(g);
  sfc_lease_query q;
  sfc_error err;
  if (sfc_lease_release(host.lease, &q)) run(&q, 15000, &err);
  sfc_generator_free(g);
  sfc_lease_free(host.lease);
  host.lease = NULL;
  if (host.conn) PQfinish(host.conn);
  host.conn = NULL;
}

bool lease_ready(void) {
  return !host.lease || sfc_lease_valid(host.lease);
}

bool lease_stats(sfc_lease_stats *out) {
  if (host.lease) sfc_lease_stats_get(host.lease, out);
  return host.lease != NULL;
}

/* The lease's stats table on standard error after the generator's: with
 * --json {"lease":{…}} by name, else one line, lease=<state>
 * <field>=<value>, then lease_<name>=<n> of each number. Both predate
 * duration_ms, a setting the hosts time their statements by: not shown. */
void lease_print_stats(bool json) {
  if (!host.lease) return;
  sfc_lease_stats s;
  sfc_lease_stats_get(host.lease, &s);
  sfk_sink out = sfk_file_sink(stderr);
  if (json)
    sfk_put(&out, "{\"lease\":{");
  else
    fprintf(stderr, "lease=%s %s=%" PRId64,
            sfc_lease_stats_text(&s, SFC_LEASE_STAT_STATE),
            sfc_lease_stats_text(&s, SFC_LEASE_STAT_FIELD),
            sfc_lease_stats_int(&s, SFC_LEASE_STAT_VALUE));
  const sfc_fact_info *f;
  for (size_t i = 0; (f = sfc_lease_stats_fact_at(i)); i++) {
    if (i == SFC_LEASE_STAT_DURATION_MS) continue;
    sfc_value v;
    sfc_lease_stats_fact(&s, i, &v);
    if (json)
      sfk_printf(&out, "%s\"%s\":", i ? "," : "", f->name);
    else if (i > SFC_LEASE_STAT_VALUE && v.type != SFC_TYPE_TEXT)
      sfk_printf(&out, " lease_%s=", f->name);
    else
      continue;
    sfk_json_value(&out, &v, false); /* the line's numbers are JSON's */
  }
  fputs(json ? "}}\n" : "\n", stderr);
}

/* `lease init [URL]`: the table, created if missing. */
static int lease_init(const cli *c, const char *url) {
  if (!url) url = lease_url(c);
  if (!url) {
    fputs(PROG ": lease init: give the database: lease init URL, --lease "
               "URL or SNOWFLAKE_LEASE_URL\n",
          stderr);
    return 2;
  }
  char why[SFC_MESSAGE_MAX];
  PGconn *conn = connect_to(url, 30000, why, sizeof why);
  if (!conn) {
    fprintf(stderr, PROG ": lease init: %s\n", why);
    return 1;
  }
  /* A role with table privileges only may not CREATE, even IF NOT
   * EXISTS: a table already there is enough. */
  PGresult *r = PQexec(conn, "SELECT to_regclass('snowflake_c_leases')");
  const bool there = PQresultStatus(r) == PGRES_TUPLES_OK &&
                     PQntuples(r) == 1 && !PQgetisnull(r, 0, 0);
  PQclear(r);
  r = PQexec(conn, there ? "SELECT 1" : sfc_lease_table_sql());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
                  PQresultStatus(r) == PGRES_TUPLES_OK;
  if (!ok) fprintf(stderr, PROG ": lease init: %s", PQresultErrorMessage(r));
  PQclear(r);
  PQfinish(conn);
  if (ok)
    fputs(PROG ": lease init: the table snowflake_c_leases is there\n", stderr);
  return ok ? 0 : 1;
}

int cmd_lease(cli *c, int argc, char **argv) {
  const command *cmd = find_command("lease");
  if (argc == 1 && !strcmp(argv[0], "sql")) return lease_sql();
  if ((argc == 1 || argc == 2) && !strcmp(argv[0], "init"))
    return lease_init(c, argc == 2 ? argv[1] : NULL);
  return usage_error(cmd, "lease takes init [URL] or sql");
}

#endif
