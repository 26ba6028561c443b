/* The description tables: a layout's facts, a field's, and the stats. Each
 * row names where its value is stored and how, and one getter reads any
 * row: a row added anywhere pairs its name with its own value. */
#include "internal.h"

#include <stddef.h>
#include <string.h>

/* How a row's value is stored at its offset. */
typedef enum stored {
  AS_I64,      /* int64_t */
  AS_U64,      /* uint64_t */
  AS_UNSIGNED, /* unsigned */
  AS_DOUBLE,   /* double */
  AS_TEXT,     /* const char *, NULL for none */
  AS_CHARS,    /* char[], NUL-terminated */
  AS_KIND,     /* sfc_field_kind, by name */
  AS_ROLLBACK, /* sfc_rollback, by name */
  AS_SOURCE    /* sfc_node_source, by name */
} stored;

typedef struct fact_row {
  sfc_fact_info info;
  stored as;
  size_t at; /* offset in the described struct; a MAP: of its entries */
} fact_row;

/* What a layout's facts are read from. */
typedef struct layout_view {
  const char *name, *spec;
  int64_t epoch_ms, unit_us;
  unsigned total_bits, field_count;
  sfc_layout_info info;
} layout_view;

#define ROW(name, type, doc, as, at)                                           \
  { {name, type, doc, SFC_METRIC_NONE, NULL, NULL}, as, at }
#define STAT(name, type, doc, metric, as, at)                                  \
  { {name, type, doc, SFC_METRIC_##metric, NULL, NULL}, as, at }
/* A stat whose metric has a name and help of its own. */
#define STAT_SHOWN(name, type, doc, metric, shown, help, as, at)               \
  { {name, type, doc, SFC_METRIC_##metric, shown, help}, as, at }
#define VIEW(m) offsetof(layout_view, m)
#define INFO(m) (offsetof(layout_view, info) + offsetof(sfc_layout_info, m))
#define FIELD(m) offsetof(sfc_field, m)
#define STATS(m) offsetof(sfc_stats_data, m)
#define LEASE(m) offsetof(sfc_lease_stats_data, m)

static const fact_row layout_rows[] = {
    ROW("name", SFC_TYPE_TEXT, "the preset's name, none for other layouts",
        AS_TEXT, VIEW(name)),
    ROW("spec", SFC_TYPE_TEXT, "the canonical spec, time unit always given",
        AS_TEXT, VIEW(spec)),
    ROW("epoch_ms", SFC_TYPE_INT, "Unix ms of time value 0", AS_I64,
        VIEW(epoch_ms)),
    ROW("unit_us", SFC_TYPE_INT, "length of one tick, in microseconds", AS_I64,
        VIEW(unit_us)),
    ROW("total_bits", SFC_TYPE_INT, "bits used by the fields (at most 64)",
        AS_UNSIGNED, VIEW(total_bits)),
    ROW("ids_per_second", SFC_TYPE_DOUBLE, "IDs per second per node value",
        AS_DOUBLE, INFO(ids_per_second)),
    ROW("node_capacity", SFC_TYPE_DOUBLE, "distinct node values", AS_DOUBLE,
        INFO(node_capacity)),
    ROW("time_end_ms", SFC_TYPE_INT, "first Unix ms the time field cannot hold",
        AS_I64, INFO(time_end_ms)),
    ROW("max_id", SFC_TYPE_UINT, "largest ID the layout can hold", AS_U64,
        INFO(max_id)),
    ROW("fields", SFC_TYPE_LIST, "the fields, most significant first",
        AS_UNSIGNED, VIEW(field_count)),
};

static const fact_row field_rows[] = {
    ROW("name", SFC_TYPE_TEXT, "the field's name", AS_CHARS, FIELD(name)),
    ROW("kind", SFC_TYPE_TEXT, "time, seq, clock or node", AS_KIND,
        FIELD(kind)),
    ROW("bits", SFC_TYPE_INT, "width in bits", AS_UNSIGNED, FIELD(bits)),
    ROW("shift", SFC_TYPE_INT, "position of the lowest bit", AS_UNSIGNED,
        FIELD(shift)),
    ROW("max", SFC_TYPE_UINT, "largest value: 2^bits - 1", AS_U64, FIELD(max)),
};

static const fact_row stats_rows[] = {
    STAT("ids_issued", SFC_TYPE_UINT, "IDs issued", COUNTER, AS_U64,
         STATS(ids_issued)),
    STAT("waits", SFC_TYPE_UINT, "times a call waited for the next tick",
         COUNTER, AS_U64, STATS(waits)),
    STAT("borrowed_ticks", SFC_TYPE_UINT, "ticks issued ahead of the clock",
         COUNTER, AS_U64, STATS(borrowed_ticks)),
    STAT("rollbacks", SFC_TYPE_UINT, "clock steps backwards beyond max_drift",
         COUNTER, AS_U64, STATS(rollbacks)),
    STAT("rollbacks_waited", SFC_TYPE_UINT, "rollbacks waited out", COUNTER,
         AS_U64, STATS(rollbacks_waited)),
    STAT("rollbacks_refused", SFC_TYPE_UINT, "rollbacks answered with an error",
         COUNTER, AS_U64, STATS(rollbacks_refused)),
    STAT("clock_bumps", SFC_TYPE_UINT, "times the clock field was bumped",
         COUNTER, AS_U64, STATS(clock_bumps)),
    STAT("node_switches", SFC_TYPE_UINT, "pool values taken by rollback=switch",
         COUNTER, AS_U64, STATS(node_switches)),
    STAT("last_time_ms", SFC_TYPE_INT, "Unix ms of the last tick issued", GAUGE,
         AS_I64, STATS(last_time_ms)),
    STAT("clock", SFC_TYPE_UINT, "the clock field's value (0 without one)",
         GAUGE, AS_U64, STATS(clock)),
    STAT("rollback", SFC_TYPE_TEXT, "the rollback strategy in force", NONE,
         AS_ROLLBACK, STATS(rollback)),
    STAT("max_wait_ms", SFC_TYPE_INT, "the longest wait in force, in ms", GAUGE,
         AS_I64, STATS(max_wait_ms)),
    STAT("max_drift_ms", SFC_TYPE_INT, "the drift allowed, in ms", GAUGE,
         AS_I64, STATS(max_drift_ms)),
    STAT("node", SFC_TYPE_MAP, "the node values, by field", NONE, AS_U64,
         STATS(node_values)),
    STAT("node_sources", SFC_TYPE_MAP, "where each node value came from", NONE,
         AS_SOURCE, STATS(node_sources)),
    STAT("guard", SFC_TYPE_TEXT, "held: <the host-wide claim>, or off", NONE,
         AS_TEXT, STATS(guard)),
};

static const fact_row lease_rows[] = {
    STAT("state", SFC_TYPE_TEXT,
         "acquiring, held, expired (no renewal within a lease: no IDs until "
         "one succeeds), lost or released",
         NONE, AS_TEXT, LEASE(state)),
    STAT("field", SFC_TYPE_TEXT, "the node field leased", NONE, AS_TEXT,
         LEASE(field)),
    STAT("value", SFC_TYPE_INT, "the node value held, -1 before one is held",
         NONE, AS_I64, LEASE(value)),
    STAT_SHOWN(
        "expires_ms", SFC_TYPE_INT,
        "Unix ms: the deadline on this host's clock, past which no ID is "
        "issued",
        GAUGE, "expiry_seconds",
        "when the lease expires, on this host's clock (Unix seconds)", AS_I64,
        LEASE(expires_ms)),
    STAT("horizon_ms", SFC_TYPE_INT,
         "Unix ms: no ID past it (the horizon written in the database)", NONE,
         AS_I64, LEASE(horizon_ms)),
    STAT("renewals", SFC_TYPE_UINT, "renewals of the lease that succeeded",
         COUNTER, AS_U64, LEASE(renewals)),
    STAT("failures", SFC_TYPE_UINT,
         "statements of the lease that could not be run", COUNTER, AS_U64,
         LEASE(failures)),
    STAT("error", SFC_TYPE_TEXT, "the last failure, or empty", NONE, AS_CHARS,
         LEASE(error)),
    STAT("duration_ms", SFC_TYPE_INT,
         "the lease in ms, by the database's clock: an acquire gives up "
         "after one, a statement times out at a third",
         NONE, AS_I64, LEASE(duration_ms)),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const sfc_fact_info *sfc_layout_fact_at(size_t i) {
  return i < COUNT(layout_rows) ? &layout_rows[i].info : NULL;
}

const sfc_fact_info *sfc_field_fact_at(size_t i) {
  return i < COUNT(field_rows) ? &field_rows[i].info : NULL;
}

const sfc_fact_info *sfc_stats_fact_at(size_t i) {
  return i < COUNT(stats_rows) ? &stats_rows[i].info : NULL;
}

const sfc_fact_info *sfc_lease_stats_fact_at(size_t i) {
  return i < COUNT(lease_rows) ? &lease_rows[i].info : NULL;
}

/* The value stored at `p` as `as` says, with the row's type. */
static sfc_value read_as(stored as, sfc_type type, const void *p) {
  sfc_value v;
  memset(&v, 0, sizeof v);
  v.type = type;
  const char *text = NULL;
  switch (as) {
  case AS_I64:
    memcpy(&v.i, p, sizeof v.i);
    return v;
  case AS_U64:
    memcpy(&v.u, p, sizeof v.u);
    return v;
  case AS_UNSIGNED: {
    unsigned u;
    memcpy(&u, p, sizeof u);
    if (type == SFC_TYPE_INT)
      v.i = u;
    else
      v.u = u; /* a LIST's length */
    return v;
  }
  case AS_DOUBLE:
    memcpy(&v.d, p, sizeof v.d);
    return v;
  case AS_TEXT:
    memcpy(&text, p, sizeof text);
    break;
  case AS_CHARS:
    text = p;
    break;
  case AS_KIND:
    text = sfc_field_kind_name(*(const sfc_field_kind *)p);
    break;
  case AS_ROLLBACK:
    text = sfc_rollback_name(*(const sfc_rollback *)p);
    break;
  case AS_SOURCE:
    text = sfc_node_source_name(*(const sfc_node_source *)p);
    break;
  }
  v.type = text ? SFC_TYPE_TEXT : SFC_TYPE_NONE;
  v.text = text;
  v.len = text ? strlen(text) : 0;
  return v;
}

static sfc_status read_row(const fact_row *rows, size_t count, size_t i,
                           const void *base, sfc_value *out) {
  if (i >= count) return SFC_INVALID_ARGUMENT;
  *out =
      read_as(rows[i].as, rows[i].info.type, (const char *)base + rows[i].at);
  return SFC_OK;
}

sfc_status sfc_layout_fact(const sfc_layout *layout, size_t i, sfc_value *out,
                           char *buf, size_t cap) {
  layout_view v;
  v.name = sfc_layout_preset_name(layout);
  v.spec = NULL;
  if (i == 1 && cap) { /* the spec is written only when asked for */
    sfc_layout_spec(layout, buf, cap);
    v.spec = buf;
  }
  v.epoch_ms = layout->epoch_ms;
  v.unit_us = layout->unit_us;
  v.total_bits = layout->total_bits;
  v.field_count = layout->field_count;
  sfc_layout_describe(layout, &v.info);
  return read_row(layout_rows, COUNT(layout_rows), i, &v, out);
}

sfc_status sfc_field_fact(const sfc_field *field, size_t i, sfc_value *out) {
  return read_row(field_rows, COUNT(field_rows), i, field, out);
}

/* The stats' row `i` stands at its sfc_stat id. */
_Static_assert(SFC_STAT_GUARD == COUNT(stats_rows) - 1 &&
                   SFC_STAT_NODE_SOURCES == SFC_STAT_GUARD - 1,
               "one row per stat, in sfc_stat order");

static sfc_stats_data stats_of(const sfc_stats *stats) {
  sfc_stats_data d;
  memcpy(&d, stats, sizeof d);
  return d;
}

sfc_status sfc_stats_fact(const sfc_stats *stats, size_t i, sfc_value *out) {
  const sfc_stats_data s = stats_of(stats);
  if (i < COUNT(stats_rows) && stats_rows[i].info.type == SFC_TYPE_MAP) {
    memset(out, 0, sizeof *out); /* its length; sfc_stats_entry reads it */
    out->type = SFC_TYPE_MAP;
    out->u = s.node_count;
    return SFC_OK;
  }
  return read_row(stats_rows, COUNT(stats_rows), i, &s, out);
}

int sfc_stats_entry(const sfc_stats *stats, size_t i, size_t j,
                    const char **key, sfc_value *out) {
  const sfc_stats_data s = stats_of(stats);
  if (i >= COUNT(stats_rows) || stats_rows[i].info.type != SFC_TYPE_MAP ||
      j >= s.node_count)
    return 0;
  const fact_row *r = &stats_rows[i];
  const size_t size =
      r->as == AS_U64 ? sizeof(uint64_t) : sizeof(sfc_node_source);
  *key = s.node_names[j];
  *out = read_as(r->as, r->as == AS_U64 ? SFC_TYPE_UINT : SFC_TYPE_TEXT,
                 (const char *)&s + r->at + j * size);
  return 1;
}

/* `v`, read with `st`, when it is of `type`, else a value of no type. */
static sfc_value typed(sfc_status st, sfc_value v, sfc_type type) {
  if (st != SFC_OK || v.type != type) memset(&v, 0, sizeof v);
  return v;
}

/* Stat `stat` when it is of `type`, else a value of no type. */
static sfc_value stat_as(const sfc_stats *stats, sfc_stat stat, sfc_type type) {
  sfc_value v;
  const sfc_status st = sfc_stats_fact(stats, (size_t)stat, &v);
  return typed(st, v, type);
}

uint64_t sfc_stats_uint(const sfc_stats *stats, sfc_stat stat) {
  return stat_as(stats, stat, SFC_TYPE_UINT).u;
}

int64_t sfc_stats_int(const sfc_stats *stats, sfc_stat stat) {
  return stat_as(stats, stat, SFC_TYPE_INT).i;
}

const char *sfc_stats_text(const sfc_stats *stats, sfc_stat stat) {
  return stat_as(stats, stat, SFC_TYPE_TEXT).text;
}

/* A lease's row `i` stands at its sfc_lease_stat id. */
_Static_assert(SFC_LEASE_STAT_DURATION_MS == COUNT(lease_rows) - 1 &&
                   SFC_LEASE_STAT_ERROR == SFC_LEASE_STAT_DURATION_MS - 1,
               "one row per lease stat, in sfc_lease_stat order");

sfc_status sfc_lease_stats_fact(const sfc_lease_stats *stats, size_t i,
                                sfc_value *out) {
  return read_row(lease_rows, COUNT(lease_rows), i, stats, out);
}

static sfc_value lease_stat_as(const sfc_lease_stats *stats,
                               sfc_lease_stat stat, sfc_type type) {
  sfc_value v;
  const sfc_status st = sfc_lease_stats_fact(stats, (size_t)stat, &v);
  return typed(st, v, type);
}

uint64_t sfc_lease_stats_uint(const sfc_lease_stats *stats,
                              sfc_lease_stat stat) {
  return lease_stat_as(stats, stat, SFC_TYPE_UINT).u;
}

int64_t sfc_lease_stats_int(const sfc_lease_stats *stats, sfc_lease_stat stat) {
  return lease_stat_as(stats, stat, SFC_TYPE_INT).i;
}

const char *sfc_lease_stats_text(const sfc_lease_stats *stats,
                                 sfc_lease_stat stat) {
  return lease_stat_as(stats, stat, SFC_TYPE_TEXT).text;
}
