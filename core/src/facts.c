/* The description tables: a layout's facts, a field's, and the stats, each
 * a row of names and types that a binding walks to build its mapping. */
#include "internal.h"

#include <string.h>

static const sfc_fact_info layout_facts[] = {
    {"name", SFC_TYPE_TEXT, "the preset's name, none for other layouts"},
    {"spec", SFC_TYPE_TEXT, "the canonical spec, time unit always given"},
    {"epoch_ms", SFC_TYPE_INT, "Unix ms of time value 0"},
    {"unit_us", SFC_TYPE_INT, "length of one tick, in microseconds"},
    {"total_bits", SFC_TYPE_INT, "bits used by the fields (at most 64)"},
    {"ids_per_second", SFC_TYPE_DOUBLE, "IDs per second per node value"},
    {"node_capacity", SFC_TYPE_DOUBLE, "distinct node values"},
    {"time_end_ms", SFC_TYPE_INT, "first Unix ms the time field cannot hold"},
    {"max_id", SFC_TYPE_UINT, "largest ID the layout can hold"},
    {"fields", SFC_TYPE_LIST, "the fields, most significant first"},
};

static const sfc_fact_info field_facts[] = {
    {"name", SFC_TYPE_TEXT, "the field's name"},
    {"kind", SFC_TYPE_TEXT, "time, seq, clock or node"},
    {"bits", SFC_TYPE_INT, "width in bits"},
    {"shift", SFC_TYPE_INT, "position of the lowest bit"},
    {"max", SFC_TYPE_UINT, "largest value: 2^bits - 1"},
};

static const sfc_fact_info stats_facts[] = {
    {"ids_issued", SFC_TYPE_UINT, "IDs issued"},
    {"waits", SFC_TYPE_UINT, "times a call waited for the next tick"},
    {"borrowed_ticks", SFC_TYPE_UINT, "ticks issued ahead of the clock"},
    {"rollbacks", SFC_TYPE_UINT, "clock steps backwards beyond max_drift"},
    {"rollbacks_waited", SFC_TYPE_UINT, "rollbacks waited out"},
    {"rollbacks_refused", SFC_TYPE_UINT, "rollbacks answered with an error"},
    {"clock_bumps", SFC_TYPE_UINT, "times the clock field was bumped"},
    {"node_switches", SFC_TYPE_UINT, "pool values taken by rollback=switch"},
    {"last_time_ms", SFC_TYPE_INT, "Unix ms of the last tick issued"},
    {"clock", SFC_TYPE_UINT, "the clock field's value (0 without one)"},
    {"rollback", SFC_TYPE_TEXT, "the rollback strategy in force"},
    {"max_wait_ms", SFC_TYPE_INT, "the longest wait in force, in ms"},
    {"max_drift_ms", SFC_TYPE_INT, "the drift allowed, in ms"},
    {"node", SFC_TYPE_MAP, "the node values, by field"},
    {"node_sources", SFC_TYPE_MAP, "where each node value came from"},
    {"guard", SFC_TYPE_TEXT, "held: <the host-wide claim>, or off"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* sfc_stats_fact and sfc_layout_fact read by these positions. */
_Static_assert(COUNT(stats_facts) == 16, "stats_facts and sfc_stats_fact");
_Static_assert(COUNT(layout_facts) == 10, "layout_facts and sfc_layout_fact");

const sfc_fact_info *sfc_layout_fact_at(size_t i) {
  return i < COUNT(layout_facts) ? &layout_facts[i] : NULL;
}

const sfc_fact_info *sfc_field_fact_at(size_t i) {
  return i < COUNT(field_facts) ? &field_facts[i] : NULL;
}

const sfc_fact_info *sfc_stats_fact_at(size_t i) {
  return i < COUNT(stats_facts) ? &stats_facts[i] : NULL;
}

static sfc_value int_value(int64_t i) {
  sfc_value v = {SFC_TYPE_INT, i, 0, 0, NULL, 0, 0};
  return v;
}

static sfc_value uint_value(uint64_t u) {
  sfc_value v = {SFC_TYPE_UINT, 0, u, 0, NULL, 0, 0};
  return v;
}

static sfc_value text_value(const char *text) {
  sfc_value v = {text ? SFC_TYPE_TEXT : SFC_TYPE_NONE,
                 0,
                 0,
                 0,
                 text,
                 text ? strlen(text) : 0,
                 0};
  return v;
}

static sfc_status past_end(const char *table, size_t i, sfc_error *err) {
  return sfc_fail(err, SFC_INVALID_ARGUMENT, "%s fact %zu does not exist",
                  table, i);
}

sfc_status sfc_layout_fact(const sfc_layout *layout, size_t i, sfc_value *out,
                           char *buf, size_t cap) {
  sfc_layout_info info;
  sfc_layout_describe(layout, &info);
  switch (i) {
  case 0:
    *out = text_value(sfc_layout_preset_name(layout));
    break;
  case 1:
    sfc_layout_spec(layout, buf, cap);
    *out = text_value(cap ? buf : NULL);
    break;
  case 2:
    *out = int_value(layout->epoch_ms);
    break;
  case 3:
    *out = int_value(layout->unit_us);
    break;
  case 4:
    *out = int_value(layout->total_bits);
    break;
  case 5:
    *out = int_value(0);
    out->type = SFC_TYPE_DOUBLE;
    out->d = info.ids_per_second;
    break;
  case 6:
    *out = int_value(0);
    out->type = SFC_TYPE_DOUBLE;
    out->d = info.node_capacity;
    break;
  case 7:
    *out = int_value(info.time_end_ms);
    break;
  case 8:
    *out = uint_value(info.max_id);
    break;
  case 9:
    *out = uint_value(layout->field_count);
    out->type = SFC_TYPE_LIST;
    break;
  default:
    return past_end("layout", i, NULL);
  }
  return SFC_OK;
}

sfc_status sfc_field_fact(const sfc_field *field, size_t i, sfc_value *out) {
  switch (i) {
  case 0:
    *out = text_value(field->name);
    break;
  case 1:
    *out = text_value(sfc_field_kind_name(field->kind));
    break;
  case 2:
    *out = int_value(field->bits);
    break;
  case 3:
    *out = int_value(field->shift);
    break;
  case 4:
    *out = uint_value(field->max);
    break;
  default:
    return past_end("field", i, NULL);
  }
  return SFC_OK;
}

sfc_status sfc_stats_fact(const sfc_stats *s, size_t i, sfc_value *out) {
  const uint64_t counters[] = {s->ids_issued,       s->waits,
                               s->borrowed_ticks,   s->rollbacks,
                               s->rollbacks_waited, s->rollbacks_refused,
                               s->clock_bumps,      s->node_switches};
  if (i < COUNT(counters)) {
    *out = uint_value(counters[i]);
    return SFC_OK;
  }
  switch (i) {
  case 8:
    *out = int_value(s->last_time_ms);
    break;
  case 9:
    *out = uint_value(s->clock);
    break;
  case 10:
    *out = text_value(sfc_rollback_name(s->rollback));
    break;
  case 11:
    *out = int_value(s->max_wait_ms);
    break;
  case 12:
    *out = int_value(s->max_drift_ms);
    break;
  case 13:
  case 14:
    *out = uint_value(s->node_count);
    out->type = SFC_TYPE_MAP;
    break;
  case 15:
    *out = text_value(s->guard);
    break;
  default:
    return past_end("stats", i, NULL);
  }
  return SFC_OK;
}

int sfc_stats_entry(const sfc_stats *s, size_t i, size_t j, const char **key,
                    sfc_value *out) {
  if ((i != 13 && i != 14) || j >= s->node_count) return 0;
  *key = s->node_names[j];
  *out = i == 13 ? uint_value(s->node_values[j])
                 : text_value(sfc_node_source_name(s->node_sources[j]));
  return 1;
}
