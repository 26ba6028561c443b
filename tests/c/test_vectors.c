/*
 * test_vectors.c — runs every case of the shared test vectors
 * (the *.json files in tests/vectors, format in tests/vectors/README.md)
 * against the public C API.
 *
 *   test_vectors VECTORS_DIR
 *
 * Prints one line per failing case (file, index, description, expected,
 * got) and a last line "N passed, N failed". Exits 1 on any failure, on a
 * vector file it cannot read or on a file it has no runner for, so that no
 * case is ever skipped silently.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "snowflake_c.h"

#include "set_options.h"

#if defined(_WIN32)
#include <process.h> /* _getpid: windows.h would define `near` */
#else
#include <unistd.h>
extern char **environ; /* stdlib.h declares it on Windows */
#endif

/* ------------------------------------------------------------------ */
/* Results                                                            */
/* ------------------------------------------------------------------ */

static unsigned long passed;
static unsigned long failed;

/* What went wrong in the current case: "expected …; got …". */
static char why[4096];

static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return 0;
}

static void report(const char *file, int index, const json_value *c, int ok) {
  if (ok) {
    passed++;
    return;
  }
  failed++;
  const char *d = json_string(json_get(c, "description"), NULL);
  printf("FAIL %s[%d] \"%s\": %s\n", file, index, d ? d : "(no description)",
         why);
}

/* ------------------------------------------------------------------ */
/* Reading the vectors                                                */
/* ------------------------------------------------------------------ */

static const char *str(const json_value *obj, const char *key) {
  return json_string(json_get(obj, key), NULL);
}

/* A string with its length: a "\u0000" in it is a NUL byte of the text. */
static const char *str_n(const json_value *obj, const char *key, size_t *len) {
  return json_string(json_get(obj, key), len);
}

static int has(const json_value *obj, const char *key) {
  return json_get(obj, key) != NULL;
}

static int get_u64(const json_value *obj, const char *key, uint64_t *out) {
  return json_text_u64(str(obj, key), out);
}

static int get_i64(const json_value *obj, const char *key, int64_t *out) {
  return json_text_i64(str(obj, key), out);
}

/* A JSON number that is an integer (written without a fraction or an
 * exponent, as the bindings' languages tell an int from a float). */
static int get_int(const json_value *v, int64_t *out) {
  return json_int64(v, out);
}

/* Any JSON number. */
static int get_double(const json_value *v, double *out) {
  return json_double(v, out);
}

static const char *status_text(sfc_status st, const sfc_error *err) {
  static char buf[SFC_MESSAGE_MAX + 64];
  if (st == SFC_OK || st == SFC_WAIT)
    snprintf(buf, sizeof buf, "%s", sfc_status_name(st));
  else
    snprintf(buf, sizeof buf, "%s (%s)", sfc_status_name(st), err->message);
  return buf;
}

/* Builds the layout a case refers to: {"preset": …} or {"spec", "epoch"}. */
static sfc_status layout_from(const json_value *obj, sfc_layout *out,
                              sfc_error *err) {
  const char *preset = str(obj, "preset");
  if (preset) return sfc_layout_preset(preset, out, err);
  const char *spec = str(obj, "spec");
  const char *epoch = str(obj, "epoch");
  if (!spec || !epoch) {
    err->status = SFC_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message,
             "vector has no preset and no spec/epoch");
    return SFC_INVALID_ARGUMENT;
  }
  int64_t epoch_ms = 0;
  sfc_status st = sfc_epoch_parse(epoch, &epoch_ms, err);
  if (st != SFC_OK) return st;
  return sfc_layout_parse(spec, epoch_ms, out, err);
}

static int case_layout(const json_value *c, sfc_layout *out) {
  const json_value *ref = json_get(c, "layout");
  sfc_error err;
  sfc_status st = layout_from(ref, out, &err);
  if (st != SFC_OK)
    return fail("expected the layout to be valid; got %s",
                status_text(st, &err));
  return 1;
}

/* The expected error kind of a case, or NULL. */
static const char *expected_error(const json_value *obj) {
  return str(obj, "error");
}

static int check_error(const char *want, sfc_status st, const sfc_error *err,
                       const char *what) {
  if (st == SFC_OK || st == SFC_WAIT)
    return fail("expected %s from %s; got %s", want, what, sfc_status_name(st));
  if (strcmp(sfc_status_name(st), want) != 0)
    return fail("expected %s from %s; got %s", want, what,
                status_text(st, err));
  return 1;
}

/* ------------------------------------------------------------------ */
/* layouts.json                                                       */
/* ------------------------------------------------------------------ */

static const char *kind_name(sfc_field_kind k) {
  switch (k) {
  case SFC_FIELD_TIME:
    return "time";
  case SFC_FIELD_SEQ:
    return "seq";
  case SFC_FIELD_CLOCK:
    return "clock";
  case SFC_FIELD_NODE:
    return "node";
  }
  return "?";
}

/* Relative comparison of doubles (no libm needed). */
static double absd(double x) {
  return x < 0 ? -x : x;
}

static int near(double a, double b) {
  double scale = absd(a) > absd(b) ? absd(a) : absd(b);
  return absd(a - b) <= 1e-9 * (scale > 1.0 ? scale : 1.0);
}

static int run_layout(const json_value *c) {
  sfc_layout L;
  sfc_error err;
  sfc_status st = layout_from(c, &L, &err);
  const char *want_err = expected_error(c);
  if (want_err) return check_error(want_err, st, &err, "the layout");
  if (st != SFC_OK)
    return fail("expected a valid layout; got %s", status_text(st, &err));

  const json_value *e = json_get(c, "expect");
  char spec[SFC_SPEC_MAX];
  size_t n = sfc_layout_spec(&L, spec, sizeof spec);
  const char *want_spec = str(e, "spec");
  if (!want_spec || n >= sizeof spec || strcmp(spec, want_spec) != 0)
    return fail("expected spec \"%s\"; got \"%s\"", want_spec ? want_spec : "?",
                spec);

  int64_t i64 = 0;
  uint64_t u64 = 0;
  if (!get_i64(e, "epoch_ms", &i64) || i64 != L.epoch_ms)
    return fail("expected epoch_ms %s; got %" PRId64, str(e, "epoch_ms"),
                L.epoch_ms);
  if (!get_i64(e, "unit_us", &i64) || i64 != L.unit_us)
    return fail("expected unit_us %s; got %" PRId64, str(e, "unit_us"),
                L.unit_us);
  int64_t total = -1;
  if (!get_int(json_get(e, "total_bits"), &total) ||
      total != (int64_t)L.total_bits)
    return fail("expected total_bits %" PRId64 "; got %u", total, L.total_bits);

  const json_value *fields = json_get(e, "fields");
  int count = (int)json_count(fields);
  if (count != (int)L.field_count)
    return fail("expected %d fields; got %u", count, L.field_count);
  for (int i = 0; i < count; i++) {
    const json_value *f = json_at(fields, (size_t)i);
    const sfc_field *g = &L.fields[i];
    int64_t bits = -1, shift = -1;
    const char *name = str(f, "name");
    const char *kind = str(f, "kind");
    if (!name || strcmp(name, g->name) != 0)
      return fail("expected field %d named %s; got %s", i, name ? name : "?",
                  g->name);
    if (!kind || strcmp(kind, kind_name(g->kind)) != 0)
      return fail("expected field %s of kind %s; got %s", name,
                  kind ? kind : "?", kind_name(g->kind));
    if (!get_int(json_get(f, "bits"), &bits) || bits != (int64_t)g->bits)
      return fail("expected field %s bits %" PRId64 "; got %u", name, bits,
                  g->bits);
    if (!get_int(json_get(f, "shift"), &shift) || shift != (int64_t)g->shift)
      return fail("expected field %s shift %" PRId64 "; got %u", name, shift,
                  g->shift);
    if (!get_u64(f, "max", &u64) || u64 != g->max)
      return fail("expected field %s max %s; got %" PRIu64, name, str(f, "max"),
                  g->max);
    if (sfc_layout_field_index(&L, name) != i)
      return fail("expected sfc_layout_field_index(%s) = %d; got %d", name, i,
                  sfc_layout_field_index(&L, name));
    int want_index = g->kind == SFC_FIELD_TIME    ? L.time_index
                     : g->kind == SFC_FIELD_SEQ   ? L.seq_index
                     : g->kind == SFC_FIELD_CLOCK ? L.clock_index
                                                  : i;
    if (want_index != i)
      return fail("expected the %s index to be %d; got %d", kind, i,
                  want_index);
  }
  if (L.time_index != 0)
    return fail("expected time_index 0; got %d", L.time_index);
  if (L.clock_index >= 0 && L.fields[L.clock_index].kind != SFC_FIELD_CLOCK)
    return fail("expected clock_index to point at the clock field; got %d",
                L.clock_index);
  if (L.clock_index < 0) {
    for (unsigned i = 0; i < L.field_count; i++)
      if (L.fields[i].kind == SFC_FIELD_CLOCK)
        return fail("expected clock_index %u; got -1", i);
  }

  sfc_layout_info info;
  sfc_layout_describe(&L, &info);
  double ips = -1.0, cap = -1.0;
  if (!get_double(json_get(e, "ids_per_second"), &ips) ||
      !near(ips, info.ids_per_second))
    return fail("expected ids_per_second %.17g; got %.17g", ips,
                info.ids_per_second);
  if (!get_double(json_get(e, "node_capacity"), &cap) ||
      !near(cap, info.node_capacity))
    return fail("expected node_capacity %.17g; got %.17g", cap,
                info.node_capacity);
  if (!get_i64(e, "time_end_ms", &i64) || i64 != info.time_end_ms)
    return fail("expected time_end_ms %s; got %" PRId64, str(e, "time_end_ms"),
                info.time_end_ms);
  char iso[SFC_ISO_MAX];
  sfc_format_iso(info.time_end_ms, iso, sizeof iso);
  const char *want_iso = str(e, "time_end");
  if (!want_iso || strcmp(iso, want_iso) != 0)
    return fail("expected time_end %s; got %s", want_iso ? want_iso : "?", iso);
  if (!get_u64(e, "max_id", &u64) || u64 != info.max_id)
    return fail("expected max_id %s; got %" PRIu64, str(e, "max_id"),
                info.max_id);
  return 1;
}

/* ------------------------------------------------------------------ */
/* decode.json                                                        */
/* ------------------------------------------------------------------ */

static int run_decode(const json_value *c) {
  sfc_layout L;
  if (!case_layout(c, &L)) return 0;
  size_t text_len = 0;
  const char *text = str_n(c, "id", &text_len);
  const char *want_err = expected_error(c);
  sfc_error err;
  uint64_t id = 0;
  sfc_parts parts;
  if (!text) return fail("expected an \"id\" string in the vector");
  sfc_status st = sfc_id_parse(text, text_len, SFC_ENCODING_DEC, &id, &err);
  if (want_err) {
    if (st == SFC_OK) st = sfc_decode(&L, id, &parts, &err);
    return check_error(want_err, st, &err, "decoding");
  }
  if (st != SFC_OK)
    return fail("expected sfc_id_parse(\"%s\") to succeed; got %s", text,
                status_text(st, &err));
  uint64_t want_id = 0;
  if (!json_text_u64(text, &want_id) || want_id != id)
    return fail("expected sfc_id_parse(\"%s\") = %s; got %" PRIu64, text, text,
                id);
  st = sfc_decode(&L, id, &parts, &err);
  if (st != SFC_OK)
    return fail("expected the ID to decode; got %s", status_text(st, &err));
  if (parts.id != id)
    return fail("expected parts.id %" PRIu64 "; got %" PRIu64, id, parts.id);

  char json[SFC_JSON_MAX];
  size_t n = sfc_parts_json(&L, &parts, json, sizeof json);
  const char *want_json = str(c, "json");
  if (!want_json || n >= sizeof json || strcmp(json, want_json) != 0 ||
      n != strlen(want_json))
    return fail("expected %s; got %s", want_json ? want_json : "?", json);

  const json_value *fields = json_get(c, "fields");
  if ((int)json_count(fields) != (int)L.field_count - 1)
    return fail("expected the vector to list %u fields; it lists %d",
                L.field_count - 1, (int)json_count(fields));
  for (unsigned i = 0; i < L.field_count; i++) {
    if ((int)i == L.time_index) continue;
    uint64_t want = 0;
    if (!get_u64(fields, L.fields[i].name, &want))
      return fail("expected the vector to give field %s", L.fields[i].name);
    if (parts.values[i] != want)
      return fail("expected %s = %" PRIu64 "; got %" PRIu64, L.fields[i].name,
                  want, parts.values[i]);
  }
  /* time_ms and time_us agree with each other and with the JSON. */
  int64_t floor_ms = parts.time_us >= 0 ? parts.time_us / 1000
                                        : -((-parts.time_us + 999) / 1000);
  if (parts.time_ms != floor_ms)
    return fail("expected time_ms = floor(time_us / 1000) = %" PRId64
                "; got %" PRId64,
                floor_ms, parts.time_ms);

  /* Every decode case encodes back to its ID. */
  sfc_parts in;
  memset(&in, 0, sizeof in);
  in.time_us = parts.time_us;
  for (unsigned i = 0; i < L.field_count; i++)
    in.values[i] = parts.values[i];
  uint64_t back = 0;
  st = sfc_encode(&L, &in, &back, &err);
  if (st != SFC_OK)
    return fail("expected the decoded parts to encode back to %" PRIu64
                "; got %s",
                id, status_text(st, &err));
  if (back != id)
    return fail("expected the decoded parts to encode back to %" PRIu64
                "; got %" PRIu64,
                id, back);
  return 1;
}

/* ------------------------------------------------------------------ */
/* encode.json                                                        */
/* ------------------------------------------------------------------ */

static int run_encode(const json_value *c) {
  sfc_layout L;
  if (!case_layout(c, &L)) return 0;
  int64_t time_ms = 0;
  if (!get_i64(c, "time_ms", &time_ms))
    return fail("expected a \"time_ms\" decimal string in the vector");
  /* Fields go to the core by name: it checks names, ranges and gaps. */
  const json_value *fields = json_get(c, "fields");
  const json_value *f;
  sfc_node_value named[SFC_MAX_FIELDS];
  size_t count = 0;
  JSON_FOR_EACH(f, fields) {
    uint64_t v = 0;
    if (count == SFC_MAX_FIELDS)
      return fail("expected at most %d fields", SFC_MAX_FIELDS);
    if (!json_is(f, JSON_STRING) || !json_text_u64(f->text, &v) ||
        v > INT64_MAX)
      return fail("expected field %s as a decimal string", f->key);
    named[count].name = f->key;
    named[count].value = (int64_t)v;
    count++;
  }
  sfc_error err;
  uint64_t id = 0;
  sfc_status st = sfc_encode_named(&L, time_ms * 1000, named, count, &id, &err);
  const char *want_err = expected_error(c);
  if (want_err) return check_error(want_err, st, &err, "encoding");
  if (st != SFC_OK)
    return fail("expected ID %s; got %s", str(c, "id"), status_text(st, &err));
  uint64_t want = 0;
  if (!get_u64(c, "id", &want) || id != want)
    return fail("expected ID %s; got %" PRIu64, str(c, "id"), id);
  return 1;
}

/* ------------------------------------------------------------------ */
/* range.json                                                         */
/* ------------------------------------------------------------------ */

static int run_range(const json_value *c) {
  sfc_layout L;
  if (!case_layout(c, &L)) return 0;
  int64_t t0 = 0, t1 = 0;
  if (!get_i64(c, "t0_ms", &t0) || !get_i64(c, "t1_ms", &t1))
    return fail("expected t0_ms and t1_ms decimal strings in the vector");
  sfc_error err;
  uint64_t lo = 0, hi = 0;
  sfc_status st = sfc_range(&L, t0, t1, &lo, &hi, &err);
  const char *want_err = expected_error(c);
  if (want_err) return check_error(want_err, st, &err, "the range");
  if (st != SFC_OK)
    return fail("expected [%s, %s]; got %s", str(c, "min"), str(c, "max"),
                status_text(st, &err));
  uint64_t want_lo = 0, want_hi = 0;
  if (!get_u64(c, "min", &want_lo) || !get_u64(c, "max", &want_hi) ||
      lo != want_lo || hi != want_hi)
    return fail("expected [%s, %s]; got [%" PRIu64 ", %" PRIu64 "]",
                str(c, "min"), str(c, "max"), lo, hi);
  return 1;
}

/* ------------------------------------------------------------------ */
/* generate.json                                                      */
/* ------------------------------------------------------------------ */

#if defined(_WIN32)
static int unset_env(const char *name) {
  return _putenv_s(name, ""); /* an empty value removes it */
}
#else
static int unset_env(const char *name) {
  return unsetenv(name);
}
#endif

/* 64-byte aligned memory, on every platform. */
static void *test_aligned_alloc(size_t size) {
#if defined(_WIN32)
  return _aligned_malloc(size, 64);
#else
  return aligned_alloc(64, size);
#endif
}

static void test_aligned_free(void *p) {
#if defined(_WIN32)
  _aligned_free(p);
#else
  free(p);
#endif
}

/* Removes every SNOWFLAKE_* variable, so that only the vector's options
 * give node values. */
static void clear_snowflake_env(void) {
  for (;;) {
    char name[256] = "";
    for (char **e = environ; e && *e; e++) {
      if (strncmp(*e, "SNOWFLAKE_", 10) == 0) {
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, *e, len);
        name[len] = '\0';
        break;
      }
    }
    if (!name[0] || unset_env(name) != 0) return;
  }
}

#define MAX_NODES SFC_MAX_FIELDS

/* A JSON value as a binding hands it to the core: null, a boolean, an
 * integer, a number with a fraction, text. */
static sfc_value binding_value(const json_value *v) {
  sfc_value out = {SFC_TYPE_NONE, 0, 0, 0, NULL, 0, 0};
  int64_t i;
  if (json_is(v, JSON_TRUE) || json_is(v, JSON_FALSE)) {
    out.type = SFC_TYPE_BOOL;
    out.i = json_is(v, JSON_TRUE);
  } else if (get_int(v, &i)) {
    out.type = SFC_TYPE_INT;
    out.i = i;
  } else if (get_double(v, &out.d)) {
    out.type = SFC_TYPE_DOUBLE;
  } else if (json_is(v, JSON_STRING)) {
    out.type = SFC_TYPE_TEXT;
    out.text = v->text;
    out.len = v->len;
  }
  return out;
}

static int options_from(const json_value *o, sfc_options *opts,
                        sfc_node_value nodes[MAX_NODES]) {
  sfc_options_init(opts);
  const json_value *node = json_get(o, "node");
  const json_value *v;
  size_t count = 0;
  JSON_FOR_EACH(v, node) {
    if (count == MAX_NODES)
      return fail("expected at most %d node values in the vector", MAX_NODES);
    sfc_value value = binding_value(v);
    sfc_error err;
    sfc_status st = sfc_node_value_set(&nodes[count], v->key, &value, &err);
    if (st != SFC_OK)
      return fail("expected node value %s to be taken; got %s", v->key,
                  status_text(st, &err));
    count++;
  }
  sfc_options_set_nodes(opts, nodes, count);
  const char *rb = str(o, "rollback");
  if (rb) {
    sfc_error err;
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, rb, strlen(rb), 0};
    sfc_status st = sfc_options_set(opts, "rollback", 8, &v, &err);
    if (st != SFC_OK)
      return fail("expected rollback \"%s\" to parse; got %s", rb,
                  status_text(st, &err));
  }
  const json_value *x;
  int64_t ms;
  if ((x = json_get(o, "max_wait_ms"))) {
    if (!get_int(x, &ms)) return fail("expected max_wait_ms to be an integer");
    set_ms(opts, SFC_OPTION_MAX_WAIT, ms);
  }
  if ((x = json_get(o, "max_drift_ms"))) {
    if (!get_int(x, &ms)) return fail("expected max_drift_ms to be an integer");
    set_ms(opts, SFC_OPTION_MAX_DRIFT, ms);
  }
  if ((x = json_get(o, "random_start")))
    set_bool(opts, SFC_OPTION_RANDOM_START, json_is(x, JSON_TRUE));
  return 1;
}

static void format_ids(char *buf, size_t cap, const uint64_t *ids, size_t n) {
  size_t used = 0;
  used += (size_t)snprintf(buf, cap, "[");
  for (size_t i = 0; i < n && used < cap; i++)
    used += (size_t)snprintf(buf + used, cap - used, "%s%" PRIu64, i ? "," : "",
                             ids[i]);
  if (used < cap) snprintf(buf + used, cap - used, "]");
}

static int run_step(sfc_generator *gen, const json_value *s, int k) {
  int64_t now = 0;
  const char *call = str(s, "call");
  const json_value *e = json_get(s, "expect");
  if (!get_i64(s, "now_us", &now) || !call || !e)
    return fail("step %d: expected now_us, call and expect in the vector", k);
  sfc_error err;
  int64_t wait = -1;
  const char *want_err = str(e, "error");
  uint64_t want_u = 0;
  int64_t want_wait = 0;

  if (strcmp(call, "next") == 0) {
    uint64_t id = 0;
    sfc_status st = sfc_next_at(gen, now, &id, &wait, &err);
    if (has(e, "id")) {
      if (!get_u64(e, "id", &want_u))
        return fail("step %d: bad expected id", k);
      if (st != SFC_OK)
        return fail("step %d (now_us %s): expected ID %s; got %s", k,
                    str(s, "now_us"), str(e, "id"), status_text(st, &err));
      if (id != want_u)
        return fail("step %d (now_us %s): expected ID %s; got ID %" PRIu64, k,
                    str(s, "now_us"), str(e, "id"), id);
      return 1;
    }
    if (has(e, "wait_us")) {
      if (!get_i64(e, "wait_us", &want_wait))
        return fail("step %d: bad expected wait_us", k);
      if (st != SFC_WAIT)
        return fail(
            "step %d (now_us %s): expected wait %s us; got %s%s%" PRIu64, k,
            str(s, "now_us"), str(e, "wait_us"), status_text(st, &err),
            st == SFC_OK ? " ID " : "", st == SFC_OK ? id : 0);
      if (wait != want_wait)
        return fail(
            "step %d (now_us %s): expected wait %s us; got wait %" PRId64 " us",
            k, str(s, "now_us"), str(e, "wait_us"), wait);
      return 1;
    }
    if (want_err) {
      if (st == SFC_OK)
        return fail("step %d (now_us %s): expected %s; got ID %" PRIu64, k,
                    str(s, "now_us"), want_err, id);
      if (st == SFC_WAIT)
        return fail("step %d (now_us %s): expected %s; got wait %" PRId64 " us",
                    k, str(s, "now_us"), want_err, wait);
      if (strcmp(sfc_status_name(st), want_err) != 0)
        return fail("step %d (now_us %s): expected %s; got %s", k,
                    str(s, "now_us"), want_err, status_text(st, &err));
      return 1;
    }
    return fail("step %d: expect has no outcome", k);
  }

  if (strcmp(call, "next_ids") == 0) {
    int64_t n = 0;
    if (!get_int(json_get(s, "n"), &n) || n < 0 || n > 1000000)
      return fail("step %d: expected a count n in the vector", k);
    const json_value *want_ids = json_get(e, "ids");
    int want_count = (int)json_count(want_ids);
    uint64_t *ids = calloc((size_t)n + 1, sizeof *ids);
    uint64_t *want = calloc((size_t)want_count + 1, sizeof *want);
    char got_text[2048], want_text[2048];
    int ok = 1;
    if (!ids || !want) {
      free(ids);
      free(want);
      return fail("step %d: out of memory", k);
    }
    for (int i = 0; i < want_count; i++) {
      const json_value *w = json_at(want_ids, (size_t)i);
      if (!json_is(w, JSON_STRING) || !json_text_u64(w->text, &want[i]))
        ok = fail("step %d: bad expected id at %d", k, i);
    }
    size_t filled = (size_t)-1;
    sfc_status st =
        ok ? sfc_next_ids_at(gen, now, ids, (size_t)n, &filled, &wait, &err)
           : SFC_OK;
    if (ok) {
      format_ids(got_text, sizeof got_text, ids,
                 filled <= (size_t)n ? filled : 0);
      format_ids(want_text, sizeof want_text, want, (size_t)want_count);
      if (filled != (size_t)want_count ||
          memcmp(ids, want, (size_t)want_count * sizeof *ids) != 0)
        ok = fail("step %d (now_us %s): expected IDs %s; got %s (filled %zu, "
                  "%s)",
                  k, str(s, "now_us"), want_text, got_text, filled,
                  status_text(st, &err));
    }
    if (ok && has(e, "wait_us")) {
      if (!get_i64(e, "wait_us", &want_wait))
        ok = fail("step %d: bad expected wait_us", k);
      else if (st != SFC_WAIT || wait != want_wait)
        ok = fail("step %d (now_us %s): expected the batch to stop with wait "
                  "%s us; got %s, wait %" PRId64 " us",
                  k, str(s, "now_us"), str(e, "wait_us"), status_text(st, &err),
                  st == SFC_WAIT ? wait : 0);
    } else if (ok && want_err) {
      if (st == SFC_OK || st == SFC_WAIT ||
          strcmp(sfc_status_name(st), want_err) != 0)
        ok = fail("step %d (now_us %s): expected the batch to stop with %s; "
                  "got %s",
                  k, str(s, "now_us"), want_err, status_text(st, &err));
    } else if (ok && st != SFC_OK) {
      ok = fail("step %d (now_us %s): expected OK; got %s", k, str(s, "now_us"),
                status_text(st, &err));
    }
    free(ids);
    free(want);
    return ok;
  }
  return fail("step %d: unknown call \"%s\"", k, call);
}

/* Shared generators (sfc_generator_new_shared) that ran a vector's script,
 * and vectors they refused: `auto` and `switch` take one value per process;
 * a system without a process-shared lock has none. */
static int shared_ran, shared_refused;
#if defined(_WIN32)
#define SHARED_AVAILABLE 0 /* no process-shared lock */
#else
#define SHARED_AVAILABLE 1
#endif

/* The script once on a generator of its own memory, once on one in memory
 * given to it (`shared`): the same IDs, waits and errors. */
static int run_generate_on(const json_value *c, bool shared) {
  sfc_layout L;
  if (!case_layout(c, &L)) return 0;
  sfc_options opts;
  sfc_node_value nodes[MAX_NODES];
  if (!options_from(json_get(c, "options"), &opts, nodes)) return 0;
  clear_snowflake_env();
  set_bool(&opts, SFC_OPTION_GUARD,
           false); /* the script's clock is its own (README) */
  sfc_generator *gen = NULL;
  sfc_error err;
  void *mem = NULL;
  sfc_status st;
  if (shared) {
    const size_t size = (sfc_generator_shared_size() + 63) / 64 * 64;
    mem = test_aligned_alloc(size);
    st = sfc_generator_new_shared(mem, size, &L, &opts, &gen, &err);
    if (st == SFC_INVALID_ARGUMENT && strstr(err.message, "shared")) {
      shared_refused++;
      test_aligned_free(mem);
      return 1;
    }
  } else {
    st = sfc_generator_new(&L, &opts, &gen, &err);
  }
  const char *want_err = expected_error(c);
  if (want_err) {
    int ok = check_error(want_err, st, &err, "sfc_generator_new");
    if (st == SFC_OK) sfc_generator_free(gen);
    test_aligned_free(mem);
    return ok;
  }
  if (st != SFC_OK) {
    test_aligned_free(mem);
    return fail("expected %s to succeed; got %s",
                shared ? "sfc_generator_new_shared" : "sfc_generator_new",
                status_text(st, &err));
  }
  shared_ran += shared;
  const json_value *steps = json_get(c, "steps");
  int ok = json_is(steps, JSON_ARRAY) && json_count(steps) > 0
               ? 1
               : fail("expected steps in the vector");
  int k = 0;
  const json_value *s;
  JSON_FOR_EACH(s, steps) {
    if (!ok) break;
    ok = run_step(gen, s, k++);
  }
  sfc_generator_free(gen);
  test_aligned_free(mem);
  return ok;
}

static int run_generate(const json_value *c) {
  return run_generate_on(c, false) && run_generate_on(c, true);
}

/* ------------------------------------------------------------------ */
/* Files                                                              */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* durations.json                                                     */
/* ------------------------------------------------------------------ */

/* The duration option `option` (any casing) set by name from seconds +
 * nanos, as every binding sets it: the ms it holds then. */
static sfc_status set_duration(const char *option, int64_t seconds,
                               int64_t nanos, int64_t *ms, sfc_error *err) {
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_value v = {SFC_TYPE_DURATION, seconds, 0, 0, NULL, 0, nanos};
  sfc_status st = sfc_options_set(&opts, option, strlen(option), &v, err);
  if (st != SFC_OK) return st;
  const sfc_option_info *o = sfc_option_find(option, strlen(option));
  *ms = get_ms(&opts, o->option);
  return SFC_OK;
}

static int run_duration(const json_value *c) {
  const char *option = str(c, "option");
  int64_t seconds = 0, nanos = 0, ms = -1;
  if (!option || !get_i64(c, "seconds", &seconds) ||
      !get_int(json_get(c, "nanos"), &nanos))
    return fail("expected option, seconds and nanos in the vector");
  sfc_error err;
  sfc_status st = set_duration(option, seconds, nanos, &ms, &err);
  const char *want_err = expected_error(c);
  if (want_err) {
    if (!check_error(want_err, st, &err, "the duration")) return 0;
    if (!strstr(err.message, option))
      return fail("expected the message to name %s; got %s", option,
                  err.message);
    return 1;
  }
  int64_t want = 0;
  if (!get_i64(c, "ms", &want)) return fail("expected \"ms\" in the vector");
  if (st != SFC_OK)
    return fail("expected %" PRId64 " ms; got %s", want, status_text(st, &err));
  if (ms != want)
    return fail("expected %" PRId64 " ms; got %" PRId64, want, ms);
  /* The bindings' casing names the same option. */
  char camel[32];
  size_t k = 0;
  for (const char *p = option; *p && k + 1 < sizeof camel; p++)
    if (*p == '_' && p[1]) {
      p++;
      camel[k++] = (char)(*p - 'a' + 'A');
    } else {
      camel[k++] = *p;
    }
  camel[k] = '\0';
  int64_t ms2 = -1;
  st = set_duration(camel, seconds, nanos, &ms2, &err);
  if (st != SFC_OK || ms2 != want)
    return fail("expected %s to give %" PRId64 " ms as well; got %s", camel,
                want, status_text(st, &err));
  return 1;
}

/* ------------------------------------------------------------------ */
/* encodings.json                                                     */
/* ------------------------------------------------------------------ */

/* Every string of "message_has" is in the message. */
static int message_has(const json_value *c, const sfc_error *err) {
  const json_value *m;
  JSON_FOR_EACH(m, json_get(c, "message_has")) {
    if (!json_is(m, JSON_STRING) || !strstr(err->message, m->text))
      return fail("expected the message to hold \"%s\"; got: %s",
                  json_is(m, JSON_STRING) ? m->text : "?", err->message);
  }
  return 1;
}

static int parses_to(sfc_encoding enc, const char *text, size_t len,
                     uint64_t want) {
  uint64_t id = ~want;
  sfc_error err;
  sfc_status st = sfc_id_parse(text, len, enc, &id, &err);
  if (st != SFC_OK)
    return fail("expected '%s' to parse to %" PRIu64 "; got %s", text, want,
                status_text(st, &err));
  if (id != want)
    return fail("expected '%s' to parse to %" PRIu64 "; got %" PRIu64, text,
                want, id);
  return 1;
}

static int formats_to(sfc_encoding enc, uint64_t id, unsigned flags,
                      const char *want) {
  char buf[SFC_ENCODED_MAX];
  size_t n = sfc_id_format(id, enc, flags, buf, sizeof buf);
  if (n != strlen(want) || strcmp(buf, want) != 0)
    return fail("expected %" PRIu64 " to format as '%s'; got '%s' (%zu)", id,
                want, n ? buf : "", n);
  return 1;
}

static int run_encoding(const json_value *c) {
  const char *name = str(c, "encoding");
  if (!name) return fail("expected an encoding in the vector");
  sfc_error err;
  sfc_encoding enc = SFC_ENCODING_DEC;
  sfc_status st = sfc_encoding_by_name(name, strlen(name), &enc, &err);
  const char *want_err = expected_error(c);
  size_t len = 0;
  const char *text = str_n(c, "text", &len);
  uint64_t id = 0;
  if (want_err) {
    /* An unknown encoding fails at its name; a known one at the text. */
    if (st == SFC_OK && text) st = sfc_id_parse(text, len, enc, &id, &err);
    return check_error(want_err, st, &err, text ? "the text" : "the name") &&
           message_has(c, &err);
  }
  if (st != SFC_OK)
    return fail("expected encoding '%s'; got %s", name, status_text(st, &err));
  if (!get_u64(c, "id", &id)) return fail("expected an id in the vector");
  if (text) return parses_to(enc, text, len, id);
  const char *fixed = str(c, "fixed"), *shortest = str(c, "shortest"),
             *dflt = str(c, "default");
  if (!fixed || !shortest || !dflt)
    return fail("expected default, fixed and shortest");
  return formats_to(enc, id, 0, dflt) &&
         formats_to(enc, id, SFC_FORMAT_FIXED, fixed) &&
         formats_to(enc, id, SFC_FORMAT_SHORTEST, shortest) &&
         parses_to(enc, fixed, strlen(fixed), id) &&
         parses_to(enc, shortest, strlen(shortest), id);
}

/* ------------------------------------------------------------------ */
/* contract.json                                                      */
/* ------------------------------------------------------------------ */

/* A value of the stats or a description as the vectors write it. */
static void value_text(const sfc_value *v, char *buf, size_t cap) {
  if (v->type == SFC_TYPE_TEXT)
    snprintf(buf, cap, "%s", v->text);
  else if (v->type == SFC_TYPE_INT)
    snprintf(buf, cap, "%" PRId64, v->i);
  else if (v->type == SFC_TYPE_UINT)
    snprintf(buf, cap, "%" PRIu64, v->u);
  else
    snprintf(buf, cap, "(none)");
}

/* Every key of `want` equals the generator's stat of that name, found by
 * walking the core's table; a MAP by walking its entries. */
static int check_stats(sfc_generator *g, const json_value *want) {
  sfc_stats s;
  sfc_generator_stats(g, &s);
  const json_value *w;
  JSON_FOR_EACH(w, want) {
    const sfc_fact_info *f = NULL;
    size_t i = 0;
    while ((f = sfc_stats_fact_at(i)) && strcmp(f->name, w->key) != 0)
      i++;
    if (!f) return fail("expected a stat called %s", w->key);
    sfc_value v;
    sfc_stats_fact(&s, i, &v);
    char got[SFC_MESSAGE_MAX], expect[SFC_MESSAGE_MAX];
    if (v.type != SFC_TYPE_MAP) {
      value_text(&v, got, sizeof got);
      if (!json_is(w, JSON_STRING) || strcmp(got, w->text) != 0)
        return fail("expected %s %s; got %s", w->key,
                    json_is(w, JSON_STRING) ? w->text : "(not text)", got);
      continue;
    }
    const char *key;
    size_t j = 0;
    for (; sfc_stats_entry(&s, i, j, &key, &v); j++) {
      const json_value *e = json_get(w, key);
      value_text(&v, got, sizeof got);
      int64_t n = 0;
      double d = 0;
      if (json_is(e, JSON_STRING))
        snprintf(expect, sizeof expect, "%s", e->text);
      else if (get_int(e, &n))
        snprintf(expect, sizeof expect, "%" PRId64, n);
      else if (get_double(e, &d))
        snprintf(expect, sizeof expect, "%.0f", d);
      else
        return fail("%s has %s=%s, which the vector does not", w->key, key,
                    got);
      if (strcmp(got, expect) != 0)
        return fail("expected %s.%s %s; got %s", w->key, key, expect, got);
    }
    if (j != json_count(w))
      return fail("expected %zu entries in %s; got %zu", json_count(w), w->key,
                  j);
  }
  return 1;
}

static int check_describe(const sfc_layout *l, const json_value *want) {
  const sfc_fact_info *f;
  char buf[SFC_SPEC_MAX], got[SFC_SPEC_MAX];
  for (size_t i = 0; (f = sfc_layout_fact_at(i)); i++) {
    const json_value *w = json_get(want, f->name);
    if (!w) continue;
    sfc_value v;
    sfc_layout_fact(l, i, &v, buf, sizeof buf);
    if (json_is(w, JSON_NULL)
            ? v.type != SFC_TYPE_NONE
            : (value_text(&v, got, sizeof got),
               !json_is(w, JSON_STRING) || strcmp(got, w->text)))
      return fail("expected describe %s %s; got %s", f->name,
                  json_is(w, JSON_STRING) ? w->text : "null",
                  v.type == SFC_TYPE_NONE ? "null" : got);
  }
  return 1;
}

/* The twitter preset, {"datacenter": 1, "worker": 1}, the guard off. */
static sfc_status base_generator(sfc_options *opts, sfc_generator **g,
                                 sfc_error *err) {
  static const sfc_node_value node[] = {{"datacenter", 1, SFC_SOURCE_EXPLICIT},
                                        {"worker", 1, SFC_SOURCE_EXPLICIT}};
  sfc_layout l;
  sfc_layout_preset("twitter", &l, NULL);
  sfc_options_set_nodes(opts, node, 2);
  return sfc_generator_new(&l, opts, g, err);
}

/* An error case's message_in_terms: C names the options as the core does
 * (snake_case, state_dir), so the message holds the case's "snake" text. */
static int check_terms(const json_value *c, const sfc_error *err) {
  const char *said = str(json_get(c, "message_in_terms"), "snake");
  if (said && !strstr(err->message, said))
    return fail("'%s' is not in: %s", said, err->message);
  return 1;
}

static int contract_option(const json_value *c) {
  const char *name = str(c, "option");
  const char *want_err = expected_error(c);
  sfc_options opts;
  sfc_options_init(&opts);
  set_bool(&opts, SFC_OPTION_GUARD, false);
  sfc_value v = binding_value(json_get(c, "value"));
  sfc_error err;
  sfc_status st = sfc_options_set(&opts, name, strlen(name), &v, &err);
  sfc_generator *g = NULL;
  if (st == SFC_OK) st = base_generator(&opts, &g, &err);
  if (want_err) {
    sfc_generator_free(g);
    return check_error(want_err, st, &err, name) && check_terms(c, &err);
  }
  if (st != SFC_OK)
    return fail("expected %s to be taken; got %s", name, status_text(st, &err));
  int ok = check_stats(g, json_get(c, "stats"));
  sfc_generator_free(g);
  return ok;
}

/* The warnings the generator's creation said are exactly those of the
 * case, in order: each its kind, its text holding every string of
 * "message_has". */
static int check_warnings(const sfc_generator *g, const json_value *want) {
  const char *kind, *text;
  size_t i = 0;
  for (; (kind = sfc_generator_warning_at(g, i, &text)); i++) {
    const json_value *w = json_at(want, i);
    const char *want_kind = str(w, "kind");
    if (!want_kind || strcmp(kind, want_kind) != 0)
      return fail("expected warning %zu %s; got %s: %s", i,
                  want_kind ? want_kind : "(none)", kind, text);
    const json_value *m;
    JSON_FOR_EACH(m, json_get(w, "message_has")) {
      if (!json_is(m, JSON_STRING) || !strstr(text, m->text))
        return fail("expected %s's text to hold \"%s\"; got: %s", kind,
                    json_is(m, JSON_STRING) ? m->text : "?", text);
    }
  }
  if (i != json_count(want))
    return fail("expected %zu warnings; got %zu", json_count(want), i);
  return 1;
}

static int contract_layout(const json_value *c) {
  const json_value *args = json_get(c, "args");
  const json_value *node = json_get(c, "node");
  const char *want_err = expected_error(c);
  sfc_layout l;
  sfc_error err;
  sfc_node_value nodes[MAX_NODES];
  size_t count = 0;
  sfc_generator *g = NULL;
  clear_snowflake_env();
  /* A layout object: the layout a binding already holds. */
  const json_value *object = json_get(args, "layout_object");
  sfc_layout held;
  sfc_status st = object ? layout_from(object, &held, &err) : SFC_OK;
  if (st == SFC_OK)
    st = sfc_layout_resolve(object ? &held : NULL, str(args, "preset"),
                            str(args, "layout"), str(args, "epoch"), &l, &err);
  if (st == SFC_OK && !json_is(node, JSON_OBJECT)) {
    sfc_value v = binding_value(node);
    st = sfc_node_value_set(&nodes[count++], NULL, &v, &err);
  }
  const json_value *n;
  if (json_is(node, JSON_OBJECT)) JSON_FOR_EACH(n, node) {
      sfc_value v = binding_value(n);
      if (st == SFC_OK && count < MAX_NODES)
        st = sfc_node_value_set(&nodes[count++], n->key, &v, &err);
    }
  if (st == SFC_OK) {
    sfc_options opts;
    sfc_options_init(&opts);
    set_bool(&opts, SFC_OPTION_GUARD,
             !(!json_is(json_get(c, "guard"), JSON_TRUE)));
    sfc_options_set_nodes(&opts, nodes, count);
    st = sfc_generator_new(&l, &opts, &g, &err);
  }
  if (want_err) {
    sfc_generator_free(g);
    return check_error(want_err, st, &err, "the generator") &&
           check_terms(c, &err);
  }
  if (st != SFC_OK)
    return fail("expected a generator; got %s", status_text(st, &err));
  const json_value *d = json_get(c, "describe");
  const json_value *s = json_get(c, "stats");
  const json_value *w = json_get(c, "warnings");
  int ok = (!d || check_describe(sfc_generator_layout(g), d)) &&
           (!s || check_stats(g, s)) && (!w || check_warnings(g, w));
  sfc_generator_free(g);
  return ok;
}

/* A call on IDs made elsewhere with no layout named: the core's rule for
 * the trio of such calls (sfc_layout_resolve_for_ids) refuses before the
 * call. Were it to give a layout, the call is made with it. */
static int contract_for_ids(const json_value *c) {
  const char *call = str(c, "for_ids");
  sfc_layout l;
  sfc_error err;
  sfc_status st = sfc_layout_resolve_for_ids(NULL, NULL, NULL, NULL, &l, &err);
  if (st == SFC_OK && strcmp(call, "decode") == 0) {
    uint64_t id = 0;
    sfc_parts parts;
    st = get_u64(c, "id", &id) ? sfc_decode(&l, id, &parts, &err)
                               : SFC_INVALID_ARGUMENT;
  } else if (st == SFC_OK && strcmp(call, "encode") == 0) {
    sfc_node_value named[SFC_MAX_FIELDS];
    size_t count = 0;
    const json_value *f;
    JSON_FOR_EACH(f, json_get(c, "fields")) {
      uint64_t v = 0;
      if (count < SFC_MAX_FIELDS && json_text_u64(f->text, &v)) {
        named[count].name = f->key;
        named[count++].value = (int64_t)v;
      }
    }
    int64_t time_ms = 0;
    uint64_t id = 0;
    st = get_i64(c, "time_ms", &time_ms)
             ? sfc_encode_named(&l, time_ms * 1000, named, count, &id, &err)
             : SFC_INVALID_ARGUMENT;
  } else if (st == SFC_OK) {
    int64_t t0 = 0, t1 = 0;
    uint64_t lo = 0, hi = 0;
    st = get_i64(c, "t0_ms", &t0) && get_i64(c, "t1_ms", &t1)
             ? sfc_range(&l, t0, t1, &lo, &hi, &err)
             : SFC_INVALID_ARGUMENT;
  }
  if (!check_error(expected_error(c), st, &err, call)) return 0;
  const char *want = str(c, "message");
  if (want && strcmp(err.message, want) != 0)
    return fail("expected the message \"%s\"; got \"%s\"", want, err.message);
  return 1;
}

static int contract_call(const json_value *c) {
  sfc_options opts;
  sfc_options_init(&opts);
  set_bool(&opts, SFC_OPTION_GUARD, false);
  sfc_generator *g = NULL;
  sfc_error err;
  sfc_status st = base_generator(&opts, &g, &err);
  if (st != SFC_OK)
    return fail("expected a generator; got %s", status_text(st, &err));
  sfc_generator_free(g);
  g = NULL; /* what a binding holds once closed */
  const char *call = str(c, "call");
  uint64_t ids[10];
  size_t filled = 99;
  if (strcmp(call, "next_id") == 0)
    st = sfc_next(g, ids, &err);
  else if (strcmp(call, "next_ids") == 0)
    st = sfc_next_ids(g, ids, 10, &filled, &err);
  else if (strcmp(call, "stats") == 0)
    st = sfc_generator_check(g, &err);
  else
    sfc_generator_free(g);
  if (strcmp(call, "next_ids") == 0 && filled != 0)
    return fail("expected no IDs from a closed generator; got %zu", filled);
  const char *want_err = expected_error(c);
  if (want_err) return check_error(want_err, st, &err, call);
  return st == SFC_OK ? 1
                      : fail("expected nothing; got %s", status_text(st, &err));
}

static const char *table_name(const char *table, size_t i) {
  if (strcmp(table, "options") == 0)
    return sfc_option_at(i) ? sfc_option_at(i)->name : NULL;
  if (strcmp(table, "stats") == 0)
    return sfc_stats_fact_at(i) ? sfc_stats_fact_at(i)->name : NULL;
  if (strcmp(table, "describe") == 0)
    return sfc_layout_fact_at(i) ? sfc_layout_fact_at(i)->name : NULL;
  if (strcmp(table, "fields") == 0)
    return sfc_field_fact_at(i) ? sfc_field_fact_at(i)->name : NULL;
  return NULL;
}

static int contract_table(const json_value *c) {
  const char *table = str(c, "table");
  const json_value *names = json_get(c, "names");
  const char *got[64];
  size_t n = 0;
  if (strcmp(table, "errors") == 0) {
    const sfc_status_info *s;
    for (size_t i = 0; (s = sfc_status_at(i)) && n < 64; i++)
      if (s->is_error) got[n++] = s->name;
  } else {
    while (n < 64 && (got[n] = table_name(table, n)))
      n++;
  }
  if (n != json_count(names))
    return fail("expected %zu %s; the core has %zu", json_count(names), table,
                n);
  for (size_t i = 0; i < n; i++) {
    const json_value *w = json_at(names, i);
    if (!json_is(w, JSON_STRING) || strcmp(w->text, got[i]) != 0)
      return fail("expected %s[%zu] %s; the core has %s", table, i,
                  json_is(w, JSON_STRING) ? w->text : "?", got[i]);
  }
  return 1;
}

static int run_contract(const json_value *c) {
  if (str(c, "option")) return contract_option(c);
  if (json_get(c, "args")) return contract_layout(c);
  if (str(c, "call")) return contract_call(c);
  if (str(c, "for_ids")) return contract_for_ids(c);
  if (str(c, "table")) return contract_table(c);
  return fail("unknown contract case");
}

/* ------------------------------------------------------------------ */
/* claims.json                                                        */
/* ------------------------------------------------------------------ */

static long own_pid(void) {
#if defined(_WIN32)
  return (long)_getpid();
#else
  return (long)getpid();
#endif
}

/* A generator of one side of a claims case: *st says how creation went. */
static sfc_generator *claim_side(const json_value *side, sfc_status *st,
                                 sfc_error *err) {
  sfc_layout l;
  sfc_options opts;
  sfc_node_value nodes[MAX_NODES];
  sfc_generator *g = NULL;
  *st = SFC_INVALID_ARGUMENT;
  if (!case_layout(side, &l) || !options_from(side, &opts, nodes)) return NULL;
  const bool guard = json_is(json_get(side, "guard"), JSON_TRUE);
  set_bool(&opts, SFC_OPTION_GUARD, guard);
  *st = sfc_generator_new(&l, &opts, &g, err);
  if (*st == SFC_OK) {
    sfc_stats s;
    sfc_generator_stats(g, &s);
    const char *held = sfc_stats_text(&s, SFC_STAT_GUARD);
    if (!guard ? strcmp(held, "off") != 0 : strncmp(held, "held: ", 6) != 0) {
      fail("expected the stats' guard %s; got \"%s\"",
           !guard ? "off" : "held: …", held);
      sfc_generator_free(g);
      *st = SFC_INVALID_ARGUMENT;
      return NULL;
    }
  }
  return g;
}

static int run_claim(const json_value *c) {
  clear_snowflake_env();
  sfc_status st;
  sfc_error err;
  sfc_generator *first = claim_side(json_get(c, "first"), &st, &err);
  if (!first) {
    if (!why[0])
      fail("expected the first generator to start; got %s",
           status_text(st, &err));
    return 0;
  }
  sfc_generator *second = claim_side(json_get(c, "second"), &st, &err);
  int ok = 1;
  if (json_is(json_get(c, "second_starts"), JSON_TRUE)) {
    if (!second)
      ok = why[0] ? 0
                  : fail("expected the second generator to start; got %s",
                         status_text(st, &err));
  } else if (second || st != SFC_WORKER_UNAVAILABLE) {
    ok = fail("expected WorkerUnavailable for the second; got %s",
              second ? "Ok" : status_text(st, &err));
  } else {
    char pid[48];
    snprintf(pid, sizeof pid, "live process %ld", own_pid());
    const json_value *m;
    if (!strstr(err.message, pid))
      ok = fail("expected \"%s\" in: %s", pid, err.message);
    JSON_FOR_EACH(m, json_get(c, "message")) {
      const char *want = json_string(m, NULL);
      if (ok && (!want || !strstr(err.message, want)))
        ok = fail("expected \"%s\" in: %s", want ? want : "?", err.message);
    }
  }
  /* The same generator again took the value over: the first is closed
   * and says why; anything else leaves it open. */
  uint64_t id;
  sfc_error closed_err;
  st = sfc_next(first, &id, &closed_err);
  if (ok && json_is(json_get(c, "first_closed"), JSON_TRUE)) {
    const json_value *m;
    if (st != SFC_INVALID_ARGUMENT)
      ok = fail("expected InvalidArgument from the first; got %s",
                st == SFC_OK ? "Ok" : status_text(st, &closed_err));
    JSON_FOR_EACH(m, json_get(c, "closed_message")) {
      const char *want = json_string(m, NULL);
      if (ok && (!want || !strstr(closed_err.message, want)))
        ok = fail("expected \"%s\" in: %s", want ? want : "?",
                  closed_err.message);
    }
  } else if (ok && st != SFC_OK) {
    ok = fail("expected the first to stay open; got %s",
              status_text(st, &closed_err));
  }
  sfc_generator_free(second);
  sfc_generator_free(first);
  return ok;
}

/* ------------------------------------------------------------------ */
/* uuid7.json                                                         */
/* ------------------------------------------------------------------ */

static int run_uuid7(const json_value *c) {
  size_t len = 0;
  const char *text = str_n(c, "text", &len);
  if (!text) return fail("expected a text in the vector");
  sfc_error err;
  sfc_uuid7 u;
  sfc_status st = sfc_uuid7_parse(text, len, &u, &err);
  const char *want_err = expected_error(c);
  if (want_err)
    return check_error(want_err, st, &err, "the text") && message_has(c, &err);
  if (st != SFC_OK)
    return fail("expected '%s' to decode; got %s", text, status_text(st, &err));
  uint64_t ms = 0, rand_b = 0;
  int64_t rand_a = -1;
  const char *uuid = str(c, "uuid"), *time = str(c, "time"),
             *json = str(c, "json");
  if (!get_u64(c, "time_ms", &ms) || !get_u64(c, "rand_b", &rand_b) ||
      !get_int(json_get(c, "rand_a"), &rand_a) || !uuid || !time || !json)
    return fail("expected uuid, time_ms, time, rand_a, rand_b, json");
  if (strcmp(u.text, uuid) != 0)
    return fail("expected uuid %s; got %s", uuid, u.text);
  if ((uint64_t)u.unix_ms != ms)
    return fail("expected time_ms %" PRIu64 "; got %" PRId64, ms, u.unix_ms);
  if ((int64_t)u.rand_a != rand_a || u.rand_b != rand_b)
    return fail("expected rand_a %" PRId64 ", rand_b %" PRIu64
                "; got %u, %" PRIu64,
                rand_a, rand_b, (unsigned)u.rand_a, u.rand_b);
  char iso[SFC_ISO_MAX];
  sfc_format_iso(u.unix_ms, iso, sizeof iso);
  if (strcmp(iso, time) != 0)
    return fail("expected time %s; got %s", time, iso);
  char line[SFC_UUID7_JSON_MAX];
  size_t n = sfc_uuid7_json(&u, line, sizeof line);
  if (n != strlen(json) || strcmp(line, json) != 0)
    return fail("expected JSON %s; got %s", json, line);
  /* What does not fit is cut, always ended, and the length is the whole. */
  char small[8];
  if (sfc_uuid7_json(&u, small, sizeof small) != n ||
      memcmp(small, json, 7) != 0 || small[7] != '\0')
    return fail("expected JSON cut to 7 bytes and its length %zu", n);
  return 1;
}

typedef int (*runner)(const json_value *c);

static const struct {
  const char *file;
  runner run;
} RUNNERS[] = {
    {"layouts.json", run_layout},     {"decode.json", run_decode},
    {"encode.json", run_encode},      {"range.json", run_range},
    {"generate.json", run_generate},  {"durations.json", run_duration},
    {"encodings.json", run_encoding}, {"contract.json", run_contract},
    {"claims.json", run_claim},       {"uuid7.json", run_uuid7},
};

static void file_failure(const char *file, const char *fmt, const char *arg) {
  failed++;
  printf("FAIL %s: ", file);
  printf(fmt, arg);
  printf("\n");
}

static void run_file(const char *dir, const char *file) {
  runner run = NULL;
  for (size_t i = 0; i < sizeof RUNNERS / sizeof RUNNERS[0]; i++)
    if (strcmp(RUNNERS[i].file, file) == 0) run = RUNNERS[i].run;
  if (!run) {
    file_failure(file, "%s", "no runner for this vector file");
    return;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  json_error err;
  json_doc *doc = json_parse_file(path, &err);
  if (!doc) {
    char where[64] = "";
    if (err.line)
      snprintf(where, sizeof where, "line %lu, column %lu: ", err.line,
               err.column);
    failed++;
    printf("FAIL %s: %s%s\n", file, where, err.message);
    return;
  }
  const json_value *cases = json_root(doc);
  if (!json_is(cases, JSON_ARRAY) || json_count(cases) == 0) {
    file_failure(file, "%s", "not a non-empty JSON array of cases");
    json_free(doc);
    return;
  }
  int index = 0;
  const json_value *c;
  JSON_FOR_EACH(c, cases) {
    why[0] = '\0';
    int ok = json_is(c, JSON_OBJECT) ? run(c) : fail("case is not an object");
    report(file, index++, c, ok);
  }
  json_free(doc);
}

static int is_vector_file(const char *name) {
  size_t n = strlen(name);
  return n > 5 && strcmp(name + n - 5, ".json") == 0 &&
         strcmp(name, "schema.json") != 0;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The vector files of the folder, sorted by name (malloc'd); -1 when the
 * folder cannot be read. */
static int list_vector_files(const char *dir, char ***out) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char **names = NULL;
  int n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (!is_vector_file(e->d_name)) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      char **grown = realloc(names, (size_t)cap * sizeof *names);
      if (!grown) break;
      names = grown;
    }
    size_t len = strlen(e->d_name) + 1;
    if (!(names[n] = malloc(len))) break;
    memcpy(names[n++], e->d_name, len);
  }
  closedir(d);
  if (n) qsort(names, (size_t)n, sizeof *names, compare_names);
  *out = names;
  return n;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
    printf("0 passed, 1 failed\n");
    return 1;
  }
  char **list = NULL;
  int n = list_vector_files(argv[1], &list);
  if (n < 0) {
    printf("FAIL %s: cannot list: %s\n", argv[1], strerror(errno));
    printf("0 passed, 1 failed\n");
    return 1;
  }
  if (n == 0) {
    printf("FAIL %s: no vector files\n", argv[1]);
    failed++;
  }
  /* Every runner's file must be there: a missing file is a failure, not a
   * silent skip. */
  for (size_t i = 0; i < sizeof RUNNERS / sizeof RUNNERS[0]; i++) {
    int found = 0;
    for (int j = 0; j < n; j++)
      found |= strcmp(list[j], RUNNERS[i].file) == 0;
    if (!found)
      file_failure(RUNNERS[i].file, "%s", "missing from the vectors directory");
  }
  for (int i = 0; i < n; i++) {
    run_file(argv[1], list[i]);
    free(list[i]);
  }
  free(list);
  /* The shared generator ran the scripts too, where the system has one. */
  printf("generate.json on shared generators: %d ran, %d refused\n", shared_ran,
         shared_refused);
  if (shared_ran == 0 && SHARED_AVAILABLE) {
    printf("FAIL generate.json: no script ran on a shared generator\n");
    failed++;
  }
  printf("%lu passed, %lu failed\n", passed, failed);
  return failed ? 1 : 0;
}
