/* The service's counters and /metrics, in the Prometheus text format
 * (version 0.0.4): the generator's and the lease's stats walked from the
 * core's tables (numbers as counters and gauges, the generator's text as
 * the labels of an info metric, the node values by field), the requests by
 * status, the IDs served and a latency histogram. */
#include "cli.h"
#include "service.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

/* Rows of a stats table read at once (more than the tables have). */
#define ROWS 48

/* The counters of a stats table, then its gauges, as the generator's table
 * has them: each <prefix><name> (a counter's with _total) or under the name
 * and help of its row, a time in ms then in seconds. */
static void numbers(const sfk_sink *out, const char *prefix,
                    const sfc_fact_info *(*at)(size_t), const sfc_value *v,
                    size_t n) {
  for (int gauge = 0; gauge < 2; gauge++)
    for (size_t i = 0; i < n; i++) {
      const sfc_fact_info *f = at(i);
      if (f->metric != (gauge ? SFC_METRIC_GAUGE : SFC_METRIC_COUNTER))
        continue;
      const char *own = f->metric_name;
      char name[96];
      snprintf(name, sizeof name, "%s%s%s", prefix, own ? own : f->name,
               gauge || own ? "" : "_total");
      header(out, name, gauge ? "gauge" : "counter",
             f->metric_help ? f->metric_help : f->doc);
      if (own && strstr(own, "_seconds"))
        sfk_printf(out, "%s %.3f\n", name, (double)v[i].i / 1000);
      else if (v[i].type == SFC_TYPE_UINT)
        sfk_printf(out, "%s %" PRIu64 "\n", name, v[i].u);
      else
        sfk_printf(out, "%s %" PRId64 "\n", name, v[i].i);
    }
}

static void generator_stats(service *s, const sfk_sink *out) {
  sfc_stats st;
  sfc_generator_stats(s->gen, &st);
  sfc_value v[ROWS];
  size_t n = 0;
  while (n < ROWS && sfc_stats_fact(&st, n, &v[n]) == SFC_OK)
    n++;
  numbers(out, "snowflake_c_generator_", sfc_stats_fact_at, v, n);
  bool any_text = false;
  for (size_t i = 0; i < n; i++)
    any_text = any_text || v[i].type == SFC_TYPE_TEXT;
  if (any_text) {
    header(out, "snowflake_c_generator_info", "gauge",
           "the generator's settings as labels (the stats that are text)");
    sfk_put(out, "snowflake_c_generator_info{");
    bool first = true;
    for (size_t i = 0; i < n; i++) {
      if (v[i].type != SFC_TYPE_TEXT) continue;
      sfk_printf(out, "%s%s=\"", first ? "" : ",", sfc_stats_fact_at(i)->name);
      label_value(out, v[i].text ? v[i].text : "");
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

/* A leased node value: whether IDs may be issued, labelled with the value,
 * then the lease's stats that are metrics. */
static void lease_metrics(const sfk_sink *out) {
  sfc_lease_stats l;
  if (!lease_stats(&l)) return;
  header(out, "snowflake_c_lease_valid", "gauge",
         "1 while the leased node value may issue IDs");
  sfk_printf(out,
             "snowflake_c_lease_valid{field=\"%s\",value=\"%" PRId64
             "\",state=\"%s\"} %d\n",
             sfc_lease_stats_text(&l, SFC_LEASE_STAT_FIELD),
             sfc_lease_stats_int(&l, SFC_LEASE_STAT_VALUE),
             sfc_lease_stats_text(&l, SFC_LEASE_STAT_STATE),
             lease_ready() ? 1 : 0);
  sfc_value v[ROWS];
  size_t n = 0;
  while (n < ROWS && sfc_lease_stats_fact(&l, n, &v[n]) == SFC_OK)
    n++;
  numbers(out, "snowflake_c_lease_", sfc_lease_stats_fact_at, v, n);
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
