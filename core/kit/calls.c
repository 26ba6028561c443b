/* The calls a host offers as the core has them: each row's arguments read
 * by their kinds, with the same checks and messages in every language, and
 * its result made through the host's primitives. */
#include <stdio.h>
#include <string.h>

#include "snowflake_c_host.h"

/* One argument, read by its kind. */
typedef struct arg {
  sfc_value v;
  sfk_obj obj;
  uint64_t u; /* an ID, an encoding, the format flags */
  int64_t i;
  const sfc_layout *layout;
} arg;

typedef int (*call_fn)(const sfk_host *h, const arg *a, sfk_obj *out,
                       sfc_error *err);

/* A call of no argument: one of the kit's walks of the core's tables. */
typedef int (*table_fn)(const sfk_host *h, sfk_obj *out);

typedef struct row {
  sfk_call call;
  call_fn run;   /* or, for a table, */
  table_fn walk; /* its walk */
} row;

static int made(const sfk_host *h, sfc_type type, int64_t i, uint64_t u,
                const char *text, sfk_obj *out) {
  sfc_value v = {type, i, u, 0, text, text ? strlen(text) : 0, 0};
  return h->out(h->ctx, &v, out);
}

static int uint_made(const sfk_host *h, uint64_t u, sfk_obj *out) {
  return made(h, SFC_TYPE_UINT, 0, u, NULL, out);
}

static int text_made(const sfk_host *h, const char *text, sfk_obj *out) {
  return made(h, SFC_TYPE_TEXT, 0, 0, text, out);
}

/* A list of the `n` scalars `v`. */
static int list_made(const sfk_host *h, size_t n, const sfc_value *v,
                     sfk_obj *out) {
  sfk_obj o;
  if (h->list(h->ctx, out) != 0) return -1;
  for (size_t k = 0; k < n; k++)
    if (h->out(h->ctx, &v[k], &o) != 0 || h->push(h->ctx, *out, o) != 0) {
      if (h->drop) h->drop(h->ctx, *out);
      return -1;
    }
  return 0;
}

static int failed(const sfc_status st) {
  return st == SFC_OK ? 0 : -1;
}

static int format_id(const sfk_host *h, const arg *a, sfk_obj *out,
                     sfc_error *err) {
  char buf[SFC_ENCODED_MAX];
  (void)err;
  sfc_id_format(a[0].u, (sfc_encoding)a[1].u, (unsigned)a[2].u, buf,
                sizeof buf);
  return text_made(h, buf, out);
}

static int parse_id(const sfk_host *h, const arg *a, sfk_obj *out,
                    sfc_error *err) {
  uint64_t id;
  return failed(sfc_id_parse(a[0].v.text, a[0].v.len, (sfc_encoding)a[1].u, &id,
                             err)) ||
         uint_made(h, id, out);
}

/* [canonical text, unix_ms, rand_a, rand_b, canonical JSON] */
static int uuid7(const sfk_host *h, const arg *a, sfk_obj *out,
                 sfc_error *err) {
  sfc_uuid7 u;
  char json[SFC_UUID7_JSON_MAX];
  if (sfc_uuid7_parse(a[0].v.text, a[0].v.len, &u, err) != SFC_OK) return -1;
  const size_t n = sfc_uuid7_json(&u, json, sizeof json);
  const sfc_value v[] = {
      {SFC_TYPE_TEXT, 0, 0, 0, u.text, strlen(u.text), 0},
      {SFC_TYPE_INT, u.unix_ms, 0, 0, NULL, 0, 0},
      {SFC_TYPE_INT, u.rand_a, 0, 0, NULL, 0, 0},
      {SFC_TYPE_UINT, 0, u.rand_b, 0, NULL, 0, 0},
      {SFC_TYPE_TEXT, 0, 0, 0, json, n, 0},
  };
  return list_made(h, sizeof v / sizeof v[0], v, out);
}

static int format_time(const sfk_host *h, const arg *a, sfk_obj *out,
                       sfc_error *err) {
  char iso[SFC_ISO_MAX];
  (void)err;
  sfc_format_iso(a[0].i, iso, sizeof iso);
  return text_made(h, iso, out);
}

static int parse_time(const sfk_host *h, const arg *a, sfk_obj *out,
                      sfc_error *err) {
  int64_t ms;
  if (sfc_epoch_parse(a[0].v.text, &ms, err) != SFC_OK) {
    sfk_fail(err, SFC_INVALID_ARGUMENT,
             "time '%.200s' is neither Unix milliseconds nor ISO-8601 UTC",
             a[0].v.text);
    return -1;
  }
  return made(h, SFC_TYPE_INT, ms, 0, NULL, out);
}

static int lease_table_sql(const sfk_host *h, const arg *a, sfk_obj *out,
                           sfc_error *err) {
  (void)a, (void)err;
  return text_made(h, sfc_lease_table_sql(), out);
}

static int layout_facts(const sfk_host *h, const arg *a, sfk_obj *out,
                        sfc_error *err) {
  (void)err;
  return sfk_layout_out(h, a[0].layout, out);
}

/* The ID of a time (µs) and the field values by name. */
static int encode(const sfk_host *h, const arg *a, sfk_obj *out,
                  sfc_error *err) {
  sfk_named fields = {0};
  uint64_t id = 0;
  int bad = !sfk_fields_read(h, a[2].obj, &fields, err) ||
            sfc_encode_named(a[0].layout, a[1].i, fields.value, fields.count,
                             &id, err) != SFC_OK;
  sfk_named_free(&fields);
  return bad ? -1 : uint_made(h, id, out);
}

/* [the smallest ID, the largest] of the times from start to end (ms). */
static int range(const sfk_host *h, const arg *a, sfk_obj *out,
                 sfc_error *err) {
  sfc_value v[2] = {{SFC_TYPE_UINT, 0, 0, 0, NULL, 0, 0},
                    {SFC_TYPE_UINT, 0, 0, 0, NULL, 0, 0}};
  return failed(
             sfc_range(a[0].layout, a[1].i, a[2].i, &v[0].u, &v[1].u, err)) ||
         list_made(h, 2, v, out);
}

static int parts_json(const sfk_host *h, const arg *a, sfk_obj *out,
                      sfc_error *err) {
  sfc_parts parts;
  char json[SFC_JSON_MAX];
  if (sfc_decode(a[0].layout, a[1].u, &parts, err) != SFC_OK) return -1;
  sfc_parts_json(a[0].layout, &parts, json, sizeof json);
  return text_made(h, json, out);
}

static int parts_time(const sfk_host *h, const arg *a, sfk_obj *out,
                      sfc_error *err) {
  sfc_parts parts;
  char iso[SFC_ISO_MAX];
  if (sfc_decode(a[0].layout, a[1].u, &parts, err) != SFC_OK) return -1;
  sfc_format_iso(parts.time_ms, iso, sizeof iso);
  return text_made(h, iso, out);
}

static int encoding_number(const sfk_host *h, const arg *a, sfk_obj *out,
                           sfc_error *err) {
  (void)err;
  return made(h, SFC_TYPE_INT, (int64_t)a[0].u, 0, NULL, out);
}

#define ARGS(...)                                                              \
  { __VA_ARGS__ }
static const row rows[] = {
    [SFK_CALL_FORMAT_ID] = {{"format_id", 3, 2,
                             ARGS(SFK_ARG_ID, SFK_ARG_ENCODING, SFK_ARG_PAD),
                             ARGS("an ID", "encoding", "pad")},
                            format_id,
                            NULL},
    [SFK_CALL_PARSE_ID] = {{"parse_id", 2, 2,
                            ARGS(SFK_ARG_TEXT, SFK_ARG_ENCODING),
                            ARGS("an encoded ID", "encoding")},
                           parse_id,
                           NULL},
    [SFK_CALL_UUID7] = {{"uuid7", 1, 1, ARGS(SFK_ARG_UUID), ARGS("uuid")},
                        uuid7,
                        NULL},
    [SFK_CALL_FORMAT_TIME] = {{"format_time", 1, 1, ARGS(SFK_ARG_INT),
                               ARGS("time")},
                              format_time,
                              NULL},
    [SFK_CALL_PARSE_TIME] = {{"parse_time", 1, 1, ARGS(SFK_ARG_TEXT),
                              ARGS("time")},
                             parse_time,
                             NULL},
    [SFK_CALL_LEASE_TABLE_SQL] = {{"lease_table_sql", 0, 0, ARGS(0), ARGS(0)},
                                  lease_table_sql,
                                  NULL},
    [SFK_CALL_PRESET_NAMES] = {{"preset_names", 0, 0, ARGS(0), ARGS(0)},
                               NULL,
                               sfk_preset_names_out},
    [SFK_CALL_OPTION_NAMES] = {{"option_names", 0, 0, ARGS(0), ARGS(0)},
                               NULL,
                               sfk_option_names_out},
    [SFK_CALL_STATUSES] = {{"statuses", 0, 0, ARGS(0), ARGS(0)},
                           NULL,
                           sfk_statuses_out},
    [SFK_CALL_OPTIONS] = {{"options", 0, 0, ARGS(0), ARGS(0)},
                          NULL,
                          sfk_options_out},
    [SFK_CALL_PRESETS] = {{"presets", 0, 0, ARGS(0), ARGS(0)},
                          NULL,
                          sfk_presets_out},
    [SFK_CALL_LAYOUT_FACTS] = {{"layout_facts", 1, 1, ARGS(SFK_ARG_LAYOUT),
                                ARGS("layout")},
                               layout_facts,
                               NULL},
    [SFK_CALL_ENCODE] = {{"encode", 3, 3,
                          ARGS(SFK_ARG_LAYOUT, SFK_ARG_INT, SFK_ARG_MAP),
                          ARGS("layout", "time", "field values")},
                         encode,
                         NULL},
    [SFK_CALL_RANGE] = {{"range", 3, 3,
                         ARGS(SFK_ARG_LAYOUT, SFK_ARG_INT, SFK_ARG_INT),
                         ARGS("layout", "start", "end")},
                        range,
                        NULL},
    [SFK_CALL_PARTS_JSON] = {{"parts_json", 2, 2,
                              ARGS(SFK_ARG_LAYOUT, SFK_ARG_ID),
                              ARGS("layout", "an ID")},
                             parts_json,
                             NULL},
    [SFK_CALL_PARTS_TIME] = {{"parts_time", 2, 2,
                              ARGS(SFK_ARG_LAYOUT, SFK_ARG_ID),
                              ARGS("layout", "an ID")},
                             parts_time,
                             NULL},
    [SFK_CALL_ENCODING_NUMBER] = {{"encoding_number", 1, 1,
                                   ARGS(SFK_ARG_ENCODING), ARGS("encoding")},
                                  encoding_number,
                                  NULL},
};

const sfk_call *sfk_call_at(size_t i) {
  return i < sizeof rows / sizeof rows[0] ? &rows[i].call : NULL;
}

/* The host's type error, or the kit's words for it. */
static int wrong_type(const sfk_host *h, sfk_obj o, const char *what,
                      sfk_arg want, sfc_error *err) {
  static const char *const words[] = {
      [SFK_ARG_ID] = "an integer or its decimal text",
      [SFK_ARG_INT] = "an integer",
      [SFK_ARG_TEXT] = "text",
      [SFK_ARG_UUID] = "a UUID's text",
      [SFK_ARG_ENCODING] = "an encoding's name",
      [SFK_ARG_PAD] = "true, false or none (the encoding's default form)",
      [SFK_ARG_MAP] = "a map by name",
      [SFK_ARG_LAYOUT] = "a Layout",
  };
  if (h->wrong_type) {
    h->wrong_type(h->ctx, o, what, (int)want);
    return -1;
  }
  sfk_fail(err, SFC_INVALID_ARGUMENT, "%s must be %s, not a %s", what,
           words[want], h->type_name(h->ctx, o));
  return -1;
}

/* An ID of 0 to 2^64 - 1 from an integer, or from its decimal text. */
static int id_read(const sfc_value *v, uint64_t *out, sfc_error *err) {
  if (v->type == SFC_TYPE_TEXT)
    return failed(sfc_id_parse(v->text, v->len, SFC_ENCODING_DEC, out, err));
  if (v->type == SFC_TYPE_UINT || v->i >= 0) {
    *out = v->type == SFC_TYPE_UINT ? v->u : (uint64_t)v->i;
    return 0;
  }
  sfk_fail(err, SFC_INVALID_ARGUMENT,
           "ID %lld is negative; IDs are unsigned 64-bit integers",
           (long long)v->i);
  return -1;
}

/* Argument `k` of `c`: `v` as the host read it, checked by its kind. */
static int arg_read(const sfk_host *h, const sfk_call *c, size_t k, sfk_obj o,
                    const sfc_value *v, arg *a, sfc_error *err) {
  const char *what = c->what[k];
  const sfk_arg kind = c->kind[k];
  const sfc_type t = v->type;
  a->v = *v;
  a->obj = o;
  switch (kind) {
  case SFK_ARG_ID:
    if (t == SFC_TYPE_INT || t == SFC_TYPE_UINT || t == SFC_TYPE_TEXT)
      return id_read(v, &a->u, err);
    break;
  case SFK_ARG_INT:
    if (t == SFC_TYPE_INT) {
      a->i = v->i;
      return 0;
    }
    if (t == SFC_TYPE_UINT) {
      sfk_fail(err, SFC_INVALID_ARGUMENT, "%s %llu is out of range", what,
               (unsigned long long)v->u);
      return -1;
    }
    break;
  case SFK_ARG_TEXT:
    if (t == SFC_TYPE_TEXT)
      return failed(sfc_text_check(what, v->text, v->len, err));
    break;
  case SFK_ARG_UUID:
    if (t == SFC_TYPE_TEXT) return 0;
    break;
  case SFK_ARG_ENCODING:
    if (t == SFC_TYPE_TEXT) {
      sfc_encoding e;
      if (sfc_text_check(what, v->text, v->len, err) != SFC_OK ||
          sfc_encoding_by_name(v->text, v->len, &e, err) != SFC_OK)
        return -1;
      a->u = (uint64_t)e;
      return 0;
    }
    break;
  case SFK_ARG_PAD:
    /* none: the encoding's default form; true its fixed width, false the
     * shortest. */
    if (t == SFC_TYPE_NONE || t == SFC_TYPE_BOOL) {
      a->u = t == SFC_TYPE_NONE ? 0
             : v->i             ? SFC_FORMAT_FIXED
                                : SFC_FORMAT_SHORTEST;
      return 0;
    }
    break;
  case SFK_ARG_MAP:
    if (t == SFC_TYPE_MAP) return 0;
    break;
  case SFK_ARG_LAYOUT: {
    sfc_layout none;
    if ((a->layout = h->layout(h->ctx, o)) != NULL) return 0;
    if (t == SFC_TYPE_NONE) /* the core's refusal: none is assumed */
      return failed(
          sfc_layout_resolve_for_ids(NULL, NULL, NULL, NULL, &none, err));
    break;
  }
  }
  return wrong_type(h, o, what, kind, err);
}

int sfk_call_run(const sfk_host *h, size_t i, const sfk_obj *objs,
                 const sfc_value *values, size_t n, sfk_obj *out,
                 sfc_error *err) {
  arg a[SFK_CALL_ARGS];
  const row *r = &rows[i];
  memset(a, 0, sizeof a);
  for (size_t k = 0; k < r->call.count; k++) {
    const sfc_value none = {SFC_TYPE_NONE, 0, 0, 0, NULL, 0, 0};
    if (arg_read(h, &r->call, k, k < n ? objs[k] : NULL,
                 k < n ? &values[k] : &none, &a[k], err) != 0)
      return -1;
  }
  return r->run ? r->run(h, a, out, err) : r->walk(h, out);
}
