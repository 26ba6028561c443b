/* The lease's timings as its hosts see them, without a database: the
 * statement due at once, and the sleeps sfc_lease_due hands out capped so
 * that no host needs a timing of its own, and its stats' table (tests/leases
 * runs the protocol against a real PostgreSQL). */
#include "check.h"
#include "lease_of.h"

#include <stdio.h>
#include <string.h>

static void acquiring(void) {
  sfc_lease *lease = new_lease(30000);
  if (!lease) return;
  sfc_lease_query q;
  int64_t wait_us = -1;
  CHECK(sfc_lease_due(lease, &q, &wait_us) == SFC_LEASE_ACQUIRE,
        "the acquire is due at once");
  CHECK(wait_us == 0 && q.nparams > 0 && q.sql != NULL,
        "a statement with its parameters: wait %lld, %d parameters",
        (long long)wait_us, q.nparams);
  /* The database could not be reached: backoff, told within 200 ms. */
  sfc_lease_failed(lease, &q, "connection refused");
  sfc_error err;
  CHECK_STATUS(sfc_lease_acquired(lease, &err), SFC_WAIT, err);
  int64_t slept = 0;
  sfc_lease_step step = SFC_LEASE_IDLE;
  for (int i = 0; i < 5000 && step == SFC_LEASE_IDLE; i++) {
    step = sfc_lease_due(lease, &q, &wait_us);
    if (step != SFC_LEASE_IDLE) break;
    CHECK(wait_us > 0 && wait_us <= 200000,
          "acquiring, a sleep of at most 200 ms: %lld µs", (long long)wait_us);
    check_sleep_us(wait_us);
    slept += wait_us;
  }
  CHECK(step == SFC_LEASE_ACQUIRE,
        "the acquire is due again after its backoff "
        "(slept %lld µs)",
        (long long)slept);

  /* Taken: value 5, nothing before it, our horizon far ahead. */
  const char *row[] = {"5", "0", "999999999999", "1"};
  CHECK_STATUS(sfc_lease_done(lease, &q, row, 4, &err), SFC_OK, err);
  CHECK_STATUS(sfc_lease_acquired(lease, &err), SFC_OK, err);
  step = sfc_lease_due(lease, &q, &wait_us);
  CHECK(step == SFC_LEASE_IDLE, "nothing due right after the acquire");
  /* The renewal is 10 s away (a third of 30 s): the host still looks every
   * 50 ms, so that a call that reached the horizon is renewed soon. */
  CHECK(wait_us > 0 && wait_us <= 50000,
        "held, a sleep of at most 50 ms: %lld µs", (long long)wait_us);
  sfc_lease_free(lease);
}

/* The lease's stats table: a row per id under its name, each read as its
 * row's type, none past the last; the readers by id as the rows say. */
static void stats_table(void) {
  sfc_lease *lease = failed_lease(30000, "connection refused");
  if (!lease) return;
  sfc_lease_stats s;
  sfc_lease_stats_get(lease, &s);
  static const char *const names[] = {
      [SFC_LEASE_STAT_STATE] = "state",
      [SFC_LEASE_STAT_FIELD] = "field",
      [SFC_LEASE_STAT_VALUE] = "value",
      [SFC_LEASE_STAT_EXPIRES_MS] = "expires_ms",
      [SFC_LEASE_STAT_HORIZON_MS] = "horizon_ms",
      [SFC_LEASE_STAT_RENEWALS] = "renewals",
      [SFC_LEASE_STAT_FAILURES] = "failures",
      [SFC_LEASE_STAT_ERROR] = "error",
      [SFC_LEASE_STAT_DURATION_MS] = "duration_ms"};
  const size_t rows = sizeof names / sizeof names[0];
  const sfc_fact_info *f;
  sfc_value v;
  size_t i = 0;
  for (; (f = sfc_lease_stats_fact_at(i)) != NULL; i++) {
    CHECK(i < rows && !strcmp(f->name, names[i]), "row %zu: %s", i, f->name);
    CHECK(sfc_lease_stats_fact(&s, i, &v) == SFC_OK && v.type == f->type,
          "row %zu read as its type", i);
  }
  CHECK(i == rows && sfc_lease_stats_fact(&s, i, &v) == SFC_INVALID_ARGUMENT,
        "one row per id, none past the last: %zu rows", i);
  const sfc_fact_info *expires =
      sfc_lease_stats_fact_at(SFC_LEASE_STAT_EXPIRES_MS);
  CHECK(expires->metric == SFC_METRIC_GAUGE &&
            !strcmp(expires->metric_name, "expiry_seconds") &&
            sfc_lease_stats_fact_at(SFC_LEASE_STAT_FAILURES)->metric ==
                SFC_METRIC_COUNTER,
        "the metrics' kinds and names");
  CHECK(!strcmp(sfc_lease_stats_text(&s, SFC_LEASE_STAT_STATE), "acquiring") &&
            !strcmp(sfc_lease_stats_text(&s, SFC_LEASE_STAT_FIELD), "worker") &&
            sfc_lease_stats_int(&s, SFC_LEASE_STAT_VALUE) == -1 &&
            sfc_lease_stats_uint(&s, SFC_LEASE_STAT_FAILURES) == 1 &&
            !strcmp(sfc_lease_stats_text(&s, SFC_LEASE_STAT_ERROR),
                    "connection refused") &&
            sfc_lease_stats_int(&s, SFC_LEASE_STAT_DURATION_MS) == 30000,
        "by id");
  CHECK(sfc_lease_stats_uint(&s, SFC_LEASE_STAT_VALUE) == 0 &&
            sfc_lease_stats_text(&s, SFC_LEASE_STAT_RENEWALS) == NULL &&
            sfc_lease_stats_int(&s, (sfc_lease_stat)rows) == 0,
        "of another type, or past the last: none");
  sfc_lease_free(lease);
}

int main(void) {
  acquiring();
  stats_table();
  return check_summary();
}
