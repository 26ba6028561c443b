/* Values out: the core's tables walked into host values, keys in the
 * core's order, for every host alike. */
#include <string.h>

#include "snowflake_c_host.h"

/* A scalar of the core as a host value. */
static int scalar(const sfk_host *h, const sfc_value *v, sfk_obj *out) {
  return h->out(h->ctx, v, out);
}

static int uint_out(const sfk_host *h, uint64_t u, sfk_obj *out) {
  sfc_value v = {SFC_TYPE_UINT, 0, u, 0, NULL, 0, 0};
  return scalar(h, &v, out);
}

static int int_out(const sfk_host *h, int64_t i, sfk_obj *out) {
  sfc_value v = {SFC_TYPE_INT, i, 0, 0, NULL, 0, 0};
  return scalar(h, &v, out);
}

/* Text, or none for NULL. */
static int text_out(const sfk_host *h, const char *text, sfk_obj *out) {
  sfc_value v = {text ? SFC_TYPE_TEXT : SFC_TYPE_NONE,
                 0,
                 0,
                 0,
                 text,
                 text ? strlen(text) : 0,
                 0};
  return scalar(h, &v, out);
}

/* Lets go of `o` after a failure, when the host has something to drop. */
static int drop(const sfk_host *h, sfk_obj o) {
  if (h->drop) h->drop(h->ctx, o);
  return -1;
}

/* map[key] = *v, *v just made by `made` (0 when it was): read after the
 * call that made it. */
static int put(const sfk_host *h, sfk_obj map, const char *key, int symbol,
               int made, const sfk_obj *v) {
  return made != 0 || h->put(h->ctx, map, key, symbol, *v) != 0 ? -1 : 0;
}

static int push(const sfk_host *h, sfk_obj list, int made, const sfk_obj *v) {
  return made != 0 || h->push(h->ctx, list, *v) != 0 ? -1 : 0;
}

/* A stats MAP: its entries by node field, keyed as data. */
static int stats_map(const sfk_host *h, const sfc_stats *s, size_t i,
                     sfk_obj *out) {
  const char *key;
  sfc_value e;
  sfk_obj x;
  if (h->map(h->ctx, out) != 0) return -1;
  for (size_t j = 0; sfc_stats_entry(s, i, j, &key, &e); j++)
    if (put(h, *out, key, 0, scalar(h, &e, &x), &x) != 0) return drop(h, *out);
  return 0;
}

/* A map of a fact table's names to the values `value` makes of `of`. */
typedef int (*fact_value)(const sfk_host *h, const void *of, size_t i,
                          sfk_obj *out);

static int facts_out(const sfk_host *h, const sfc_fact_info *(*at)(size_t),
                     fact_value value, const void *of, sfk_obj *out) {
  const sfc_fact_info *f;
  sfk_obj o;
  if (h->map(h->ctx, out) != 0) return -1;
  for (size_t i = 0; (f = at(i)) != NULL; i++)
    if (put(h, *out, f->name, 1, value(h, of, i, &o), &o) != 0)
      return drop(h, *out);
  return 0;
}

static int stats_value(const sfk_host *h, const void *of, size_t i,
                       sfk_obj *out) {
  sfc_value v;
  sfc_stats_fact(of, i, &v);
  return v.type == SFC_TYPE_MAP ? stats_map(h, of, i, out) : scalar(h, &v, out);
}

int sfk_stats_out(const sfk_host *h, const sfc_stats *s, sfk_obj *out) {
  return facts_out(h, sfc_stats_fact_at, stats_value, s, out);
}

static int field_value(const sfk_host *h, const void *of, size_t i,
                       sfk_obj *out) {
  sfc_value v;
  sfc_field_fact(of, i, &v);
  return scalar(h, &v, out);
}

int sfk_field_out(const sfk_host *h, const sfc_field *field, sfk_obj *out) {
  return facts_out(h, sfc_field_fact_at, field_value, field, out);
}

static int fields_out(const sfk_host *h, const sfc_layout *l, sfk_obj *out) {
  sfk_obj x;
  if (h->list(h->ctx, out) != 0) return -1;
  for (unsigned k = 0; k < l->field_count; k++)
    if (push(h, *out, sfk_field_out(h, &l->fields[k], &x), &x) != 0)
      return drop(h, *out);
  return 0;
}

static int layout_value(const sfk_host *h, const void *of, size_t i,
                        sfk_obj *out) {
  char buf[SFC_SPEC_MAX];
  sfc_value v;
  sfc_layout_fact(of, i, &v, buf, sizeof buf);
  return v.type == SFC_TYPE_LIST ? fields_out(h, of, out) : scalar(h, &v, out);
}

int sfk_layout_out(const sfk_host *h, const sfc_layout *l, sfk_obj *out) {
  return facts_out(h, sfc_layout_fact_at, layout_value, l, out);
}

static int lease_value(const sfk_host *h, const void *of, size_t i,
                       sfk_obj *out) {
  sfc_value v;
  sfc_lease_stats_fact(of, i, &v);
  return scalar(h, &v, out);
}

int sfk_lease_stats_out(const sfk_host *h, const sfc_lease_stats *s,
                        sfk_obj *out) {
  return facts_out(h, sfc_lease_stats_fact_at, lease_value, s, out);
}

/* [kind, text] */
static int warning_out(const sfk_host *h, const char *kind, const char *text,
                       sfk_obj *out) {
  sfk_obj o;
  if (h->list(h->ctx, out) != 0) return -1;
  if (push(h, *out, text_out(h, kind, &o), &o) ||
      push(h, *out, text_out(h, text, &o), &o))
    return drop(h, *out);
  return 0;
}

int sfk_warnings_out(const sfk_host *h, const sfc_generator *gen,
                     sfk_obj *out) {
  const char *kind, *text;
  sfk_obj o;
  if (h->list(h->ctx, out) != 0) return -1;
  for (size_t i = 0; (kind = sfc_generator_warning_at(gen, i, &text)); i++)
    if (push(h, *out, warning_out(h, kind, text, &o), &o) != 0)
      return drop(h, *out);
  return 0;
}

static int bool_out(const sfk_host *h, int b, sfk_obj *out) {
  sfc_value v = {SFC_TYPE_BOOL, b != 0, 0, 0, NULL, 0, 0};
  return scalar(h, &v, out);
}

/* A list of texts up to NULL, or none for NULL. */
static int texts_out(const sfk_host *h, const char *const *texts,
                     sfk_obj *out) {
  sfk_obj o;
  if (!texts) return text_out(h, NULL, out);
  if (h->list(h->ctx, out) != 0) return -1;
  for (size_t i = 0; texts[i]; i++)
    if (push(h, *out, text_out(h, texts[i], &o), &o) != 0) return drop(h, *out);
  return 0;
}

/* One row of a table: a map of its columns, each made by `cell` of `of`. */
typedef int (*cell_out)(const sfk_host *h, const void *of, size_t column,
                        sfk_obj *out);

static int row_out(const sfk_host *h, const char *const *columns, cell_out cell,
                   const void *of, sfk_obj *out) {
  sfk_obj o;
  if (h->map(h->ctx, out) != 0) return -1;
  for (size_t c = 0; columns[c]; c++)
    if (put(h, *out, columns[c], 1, cell(h, of, c, &o), &o) != 0)
      return drop(h, *out);
  return 0;
}

static const char *const status_columns[] = {"status", "name", "message",
                                             "is_error", NULL};

static int status_cell(const sfk_host *h, const void *of, size_t c,
                       sfk_obj *out) {
  const sfc_status_info *s = of;
  switch (c) {
  case 0:
    return int_out(h, s->status, out);
  case 1:
    return text_out(h, s->name, out);
  case 2:
    return text_out(h, s->message, out);
  default:
    return bool_out(h, s->is_error, out);
  }
}

typedef struct preset_row {
  const char *name, *spec;
  int64_t epoch_ms;
} preset_row;

/* The i-th row of a table, NULL past the last: the core's own, or made in
 * `room` (a preset's). */
typedef const void *(*row_at)(size_t i, preset_row *room);

/* A table as a list of rows, each a map of `columns` made by `cell`. */
static int table_out(const sfk_host *h, row_at at, const char *const *columns,
                     cell_out cell, sfk_obj *out) {
  preset_row room;
  const void *row;
  sfk_obj o;
  if (h->list(h->ctx, out) != 0) return -1;
  for (size_t i = 0; (row = at(i, &room)) != NULL; i++)
    if (push(h, *out, row_out(h, columns, cell, row, &o), &o))
      return drop(h, *out);
  return 0;
}

static const void *status_at(size_t i, preset_row *room) {
  (void)room;
  return sfc_status_at(i);
}

int sfk_statuses_out(const sfk_host *h, sfk_obj *out) {
  return table_out(h, status_at, status_columns, status_cell, out);
}

static const char *const option_columns[] = {
    "name", "type", "default", "min", "max", "choices", "doc", NULL};

static int option_cell(const sfk_host *h, const void *of, size_t c,
                       sfk_obj *out) {
  const sfc_option_info *o = of;
  switch (c) {
  case 0:
    return text_out(h, o->name, out);
  case 1:
    return text_out(h, sfc_type_name(o->type), out);
  case 2:
    return text_out(h, o->default_text, out);
  case 3:
    return int_out(h, o->min, out);
  case 4:
    return int_out(h, o->max, out);
  case 5:
    return texts_out(h, o->choices, out);
  default:
    return text_out(h, o->doc, out);
  }
}

static const void *option_at(size_t i, preset_row *room) {
  (void)room;
  return sfc_option_at(i);
}

int sfk_options_out(const sfk_host *h, sfk_obj *out) {
  return table_out(h, option_at, option_columns, option_cell, out);
}

static const char *const preset_columns[] = {"name", "spec", "epoch_ms", NULL};

static int preset_cell(const sfk_host *h, const void *of, size_t c,
                       sfk_obj *out) {
  const preset_row *p = of;
  return c == 2 ? int_out(h, p->epoch_ms, out)
                : text_out(h, c == 0 ? p->name : p->spec, out);
}

static const void *preset_at(size_t i, preset_row *room) {
  return sfc_preset_at(i, &room->name, &room->spec, &room->epoch_ms) == SFC_OK
             ? room
             : NULL;
}

int sfk_presets_out(const sfk_host *h, sfk_obj *out) {
  return table_out(h, preset_at, preset_columns, preset_cell, out);
}

int sfk_preset_names_out(const sfk_host *h, sfk_obj *out) {
  const char *name, *spec;
  int64_t ms;
  sfk_obj o;
  if (h->list(h->ctx, out) != 0) return -1;
  for (size_t i = 0; sfc_preset_at(i, &name, &spec, &ms) == SFC_OK; i++)
    if (push(h, *out, text_out(h, name, &o), &o) != 0) return drop(h, *out);
  return 0;
}

int sfk_option_names_out(const sfk_host *h, sfk_obj *out) {
  const sfc_option_info *info;
  sfk_obj o;
  if (h->list(h->ctx, out) != 0) return -1;
  for (size_t i = 0; (info = sfc_option_at(i)) != NULL; i++)
    if (push(h, *out, text_out(h, info->name, &o), &o) != 0)
      return drop(h, *out);
  return 0;
}

int sfk_ids_out(const sfk_host *h, const uint64_t *ids, size_t n,
                sfk_obj *out) {
  sfk_obj o;
  if (h->list(h->ctx, out) != 0) return -1;
  for (size_t i = 0; i < n; i++)
    if (push(h, *out, uint_out(h, ids[i], &o), &o) != 0) return drop(h, *out);
  return 0;
}
