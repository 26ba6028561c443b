/* The service's counters and /metrics, in the Prometheus text format
 * (version 0.0.4): the generator's stats walked from the core's table
 * (numbers as counters and gauges, text as the labels of an info metric,
 * the node values by field), the requests by status, the IDs served and a
 * latency histogram. */
#include "cli.h"
#include "service.h"

#include <inttypes.h>
#include <stdio.h>

static const unsigned codes[STATUS_KINDS] = {200, 400, 401, 404, 405,
                                             413, 500, 503, 0};
static const uint64_t bounds_us[LATENCY_BUCKETS] = {
    50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 1000000};

void metrics_request(metrics *m, unsigned status, uint64_t micros) {
  size_t k = 0;
  while (codes[k] && codes[k] != status)
    k++;
  atomic_fetch_add(&m->requests[k], 1);
  size_t b = 0;
  while (b < LATENCY_BUCKETS && micros > bounds_us[b])
    b++;
  atomic_fetch_add(&m->latency[b], 1);
  atomic_fetch_add(&m->latency_sum_us, micros);
}

/* A label's value: \, " and newline escaped. */
static void label_value(const sfk_sink *out, const char *text) {
  for (const char *p = text; *p; p++) {
    if (*p == '\\' || *p == '"') out->write(out->ctx, "\\", 1);
    if (*p == '\n')
      sfk_put(out, "\\n");
    else
      out->write(out->ctx, p, 1);
  }
}

static void header(const sfk_sink *out, const char *name, const char *type,
                   const char *help) {
  sfk_printf(out, "# HELP %s ", name);
  for (const char *p = help; *p; p++) /* one line: \ and newline escaped */
    if (*p == '\\')
      sfk_put(out, "\\\\");
    else if (*p == '\n')
      sfk_put(out, "\\n");
    else
      out->write(out->ctx, p, 1);
  sfk_printf(out, "\n# TYPE %s %s\n", name, type);
}

static void generator_stats(service *s, const sfk_sink *out) {
  sfc_stats st;
  sfc_generator_stats(s->gen, &st);
  const sfc_fact_info *f;
  bool any_text = false;
  for (size_t i = 0; (f = sfc_stats_fact_at(i)); i++) {
    sfc_value v;
    sfc_stats_fact(&st, i, &v);
    char name[96];
    if (f->metric != SFC_METRIC_NONE) {
      /* The core's table says which numbers only grow. */
      bool gauge = f->metric == SFC_METRIC_GAUGE;
      snprintf(name, sizeof name, "snowflake_c_generator_%s%s", f->name,
               gauge ? "" : "_total");
      header(out, name, gauge ? "gauge" : "counter", f->doc);
      if (v.type == SFC_TYPE_UINT)
        sfk_printf(out, "%s %" PRIu64 "\n", name, v.u);
      else
        sfk_printf(out, "%s %" PRId64 "\n", name, v.i);
    } else if (v.type == SFC_TYPE_TEXT) {
      any_text = true;
    }
  }
  if (any_text) {
    header(out, "snowflake_c_generator_info", "gauge",
           "the generator's settings as labels (the stats that are text)");
    sfk_put(out, "snowflake_c_generator_info{");
    bool first = true;
    for (size_t i = 0; (f = sfc_stats_fact_at(i)); i++) {
      sfc_value v;
      sfc_stats_fact(&st, i, &v);
      if (v.type != SFC_TYPE_TEXT) continue;
      sfk_printf(out, "%s%s=\"", first ? "" : ",", f->name);
      label_value(out, v.text ? v.text : "");
      sfk_put(out, "\"");
      first = false;
    }
    sfk_put(out, "} 1\n");
  }
  header(out, "snowflake_c_generator_node", "gauge",
         "the generator's node value of each node field, and its source");
  const char *name;
  sfc_value node, source;
  for (size_t j = 0;
       sfc_stats_entry(&st, SFC_STAT_NODE, j, &name, &node) &&
       sfc_stats_entry(&st, SFC_STAT_NODE_SOURCES, j, &name, &source);
       j++) {
    sfk_put(out, "snowflake_c_generator_node{field=\"");
    label_value(out, name);
    sfk_printf(out, "\",source=\"%s\"} %" PRIu64 "\n", source.text, node.u);
  }
}

/* A leased node value: whether IDs may be issued, its renewals and
 * failures, when it expires on this host's clock. */
static void lease_metrics(const sfk_sink *out) {
  sfc_lease_stats l;
  if (!lease_stats(&l)) return;
  header(out, "snowflake_c_lease_valid", "gauge",
         "1 while the leased node value may issue IDs");
  sfk_printf(out,
             "snowflake_c_lease_valid{field=\"%s\",value=\"%" PRId64
             "\",state=\"%s\"} %d\n",
             l.field, l.value, l.state, lease_ready() ? 1 : 0);
  header(out, "snowflake_c_lease_renewals_total", "counter",
         "renewals of the lease that succeeded");
  sfk_printf(out, "snowflake_c_lease_renewals_total %" PRIu64 "\n", l.renewals);
  header(out, "snowflake_c_lease_failures_total", "counter",
         "statements of the lease that could not be run");
  sfk_printf(out, "snowflake_c_lease_failures_total %" PRIu64 "\n", l.failures);
  header(out, "snowflake_c_lease_expiry_seconds", "gauge",
         "when the lease expires, on this host's clock (Unix seconds)");
  sfk_printf(out, "snowflake_c_lease_expiry_seconds %.3f\n",
             (double)l.expires_ms / 1000);
}

void metrics_write(service *s, const sfk_sink *out) {
  metrics *m = &s->m;
  generator_stats(s, out);
  lease_metrics(out);
  header(out, "snowflake_c_ids_served_total", "counter",
         "IDs handed out in replies");
  sfk_printf(out, "snowflake_c_ids_served_total %" PRIu64 "\n",
             (uint64_t)atomic_load(&m->ids_served));
  header(out, "snowflake_c_refusals_total", "counter",
         "requests the generator refused (503)");
  sfk_printf(out, "snowflake_c_refusals_total %" PRIu64 "\n",
             (uint64_t)atomic_load(&m->refusals));
  header(out, "snowflake_c_http_requests_total", "counter",
         "requests answered, by status (other: every status not listed)");
  for (size_t k = 0; k < STATUS_KINDS; k++) {
    if (codes[k])
      sfk_printf(out,
                 "snowflake_c_http_requests_total{code=\"%u\"} %" PRIu64 "\n",
                 codes[k], (uint64_t)atomic_load(&m->requests[k]));
    else
      sfk_printf(
          out, "snowflake_c_http_requests_total{code=\"other\"} %" PRIu64 "\n",
          (uint64_t)atomic_load(&m->requests[k]));
  }
  header(out, "snowflake_c_http_request_duration_seconds", "histogram",
         "time from a request read to its reply queued");
  uint64_t total = 0;
  for (size_t b = 0; b <= LATENCY_BUCKETS; b++) {
    total += (uint64_t)atomic_load(&m->latency[b]);
    if (b < LATENCY_BUCKETS)
      sfk_printf(out,
                 "snowflake_c_http_request_duration_seconds_bucket{le=\"%g\"} "
                 "%" PRIu64 "\n",
                 (double)bounds_us[b] / 1e6, total);
    else
      sfk_printf(
          out,
          "snowflake_c_http_request_duration_seconds_bucket{le=\"+Inf\"} "
          "%" PRIu64 "\n",
          total);
  }
  sfk_printf(out, "snowflake_c_http_request_duration_seconds_sum %.6f\n",
             (double)atomic_load(&m->latency_sum_us) / 1e6);
  sfk_printf(out,
             "snowflake_c_http_request_duration_seconds_count %" PRIu64 "\n",
             total);
}
