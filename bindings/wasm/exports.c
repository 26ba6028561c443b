/* The WebAssembly module's exports: the public C API reshaped for a host
 * that passes only numbers. Texts travel as pointers into the module's
 * memory (alloc/free); a call's results wait in static slots that the host
 * reads right after it (one thread per instance, so one set of slots), and
 * the tables' rows are made by the host as they are walked (*_out); a
 * failed call returns its status and leaves the core's message in
 * error_message(). Nothing here decides anything: node/api.js checks
 * JavaScript's values, node/wasm/binding.js converts them, this file hands
 * them to the core. */
#include <snowflake_c.h>
#include <snowflake_c_host.h>

#include <stdlib.h>
#include <string.h>

#define EXPORT(name) __attribute__((export_name(#name)))
#define IMPORT(name)                                                           \
  __attribute__((import_module("snowflake_c"), import_name(#name)))

/* The results of the last call. */
static sfc_error last_error;
static uint64_t out_u, out_u2;
static int64_t out_i, out_wait;
static size_t out_len;
static char text[SFC_JSON_MAX > SFC_SPEC_MAX ? SFC_JSON_MAX : SFC_SPEC_MAX];
static char iso[SFC_ISO_MAX];
static sfc_parts parts;

/* What a generator is made from, gathered by the calls before
 * generator_new: the node values and options (texts stay in the host's
 * allocations until then), and encode's named fields. */
#define LIST_MAX 64
static sfc_node_value list[LIST_MAX];
static size_t list_count;
static sfc_options options;

EXPORT(alloc) void *w_alloc(size_t n) {
  return malloc(n ? n : 1);
}
EXPORT(free) void w_free(void *p) {
  free(p);
}
EXPORT(error_status) int w_error_status(void) {
  return (int)last_error.status;
}
EXPORT(error_message) const char *w_error_message(void) {
  /* The options as JavaScript names them: stateDir, not state_dir. */
  static char said[2 * SFC_MESSAGE_MAX];
  if (sfc_text_in_terms(last_error.message, SFC_TERMS_CAMEL, said,
                        sizeof said) < sizeof said)
    return said;
  return last_error.message;
}
EXPORT(text) const char *w_text(void) {
  return text;
}
EXPORT(iso) const char *w_iso(void) {
  return iso;
}
EXPORT(out_u) uint64_t w_out_u(void) {
  return out_u;
}
EXPORT(out_u2) uint64_t w_out_u2(void) {
  return out_u2;
}
EXPORT(out_i) int64_t w_out_i(void) {
  return out_i;
}
EXPORT(out_wait) int64_t w_out_wait(void) {
  return out_wait;
}
EXPORT(out_len) size_t w_out_len(void) {
  return out_len;
}
EXPORT(version) const char *w_version(void) {
  return sfc_version_string();
}

/* ---- The kit's walks into JavaScript values ----
 * The kit (core/kit/snowflake_c_host.h) makes each value through the host
 * functions that node/wasm/binding.js imports: a value made goes on the
 * host's stack, a list or a map (an Array of [key, value]) too, and a put
 * or a push moves the value on top into the container beneath it, as the
 * kit always makes a value right before it puts it. */

IMPORT(out_bool) void out_bool(int b);
IMPORT(out_number) void out_number(double d);
IMPORT(out_uint) void out_uint(uint64_t u);
IMPORT(out_text) void out_text(const char *t, size_t len); /* NULL: null */
IMPORT(out_list) void out_list(void);
IMPORT(out_push) void out_push(void);
IMPORT(out_put) void out_put(const char *key);

static int host_out(void *ctx, const sfc_value *v, sfk_obj *out) {
  (void)ctx;
  *out = NULL;
  if (v->type == SFC_TYPE_BOOL)
    out_bool(v->i != 0);
  else if (v->type == SFC_TYPE_INT)
    out_number((double)v->i);
  else if (v->type == SFC_TYPE_UINT)
    out_uint(v->u);
  else if (v->type == SFC_TYPE_DOUBLE)
    out_number(v->d);
  else
    out_text(v->type == SFC_TYPE_TEXT ? v->text : NULL, v->len);
  return 0;
}
static int host_list(void *ctx, sfk_obj *out) {
  (void)ctx;
  *out = NULL;
  out_list();
  return 0;
}
static int host_push(void *ctx, sfk_obj to, sfk_obj v) {
  (void)ctx, (void)to, (void)v;
  out_push();
  return 0;
}
static int host_put(void *ctx, sfk_obj map, const char *key, int symbol,
                    sfk_obj v) {
  (void)ctx, (void)map, (void)symbol, (void)v;
  out_put(key);
  return 0;
}
static const sfk_host host = {.out = host_out,
                              .list = host_list,
                              .map = host_list,
                              .push = host_push,
                              .put = host_put};

/* ---- Tables ---- */

/* The header's sfc_type names by number ("unknown" past the last). */
EXPORT(type_name) const char *w_type_name(int type) {
  return sfc_type_name((sfc_type)type);
}

/* The core's tables: rows of [name, value] pairs, as the addon's. */
EXPORT(statuses_out) void w_statuses_out(void) {
  sfk_obj made;
  sfk_statuses_out(&host, &made);
}
EXPORT(options_out) void w_options_out(void) {
  sfk_obj made;
  sfk_options_out(&host, &made);
}
EXPORT(presets_out) void w_presets_out(void) {
  sfk_obj made;
  sfk_presets_out(&host, &made);
}

EXPORT(text_check)
int w_text_check(const char *what, const char *t, size_t len) {
  return (int)sfc_text_check(what, t, len, &last_error);
}

/* ---- Layouts ---- */

/* The layout of the trio (NULL: not given) or of `held`, in memory of its
 * own for layout_free; NULL on failure. `for_ids`: for IDs made elsewhere,
 * which no layout is assumed for. */
EXPORT(layout_resolve)
sfc_layout *w_layout_resolve(const sfc_layout *held, const char *preset,
                             const char *spec, const char *epoch, int for_ids) {
  sfc_layout *l = malloc(sizeof *l);
  if (!l) {
    sfk_fail(&last_error, SFC_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  if ((for_ids ? sfc_layout_resolve_for_ids(held, preset, spec, epoch, l,
                                            &last_error)
               : sfc_layout_resolve(held, preset, spec, epoch, l,
                                    &last_error)) != SFC_OK) {
    free(l);
    return NULL;
  }
  return l;
}
EXPORT(layout_free) void w_layout_free(sfc_layout *l) {
  free(l);
}
/* Unix ms of an instant's text, in out_i. */
EXPORT(epoch_parse) int w_epoch_parse(const char *t) {
  return (int)sfc_epoch_parse(t, &out_i, &last_error);
}

/* ---- String forms ---- */

/* The encoding named so, or -1 (the message in error_message()). */
EXPORT(encoding_by_name) int w_encoding_by_name(const char *name, size_t len) {
  sfc_encoding e;
  if (sfc_encoding_by_name(name, len, &e, &last_error) != SFC_OK) return -1;
  return (int)e;
}
/* The ID in text(); its length returned (0 for a bad encoding or form).
 * `form` is the core's flags: 0 the encoding's default (dec's shortest, the
 * others' fixed width), SFC_FORMAT_SHORTEST or SFC_FORMAT_FIXED. */
EXPORT(id_format)
size_t w_id_format(uint64_t id, int encoding, unsigned form) {
  return sfc_id_format(id, (sfc_encoding)encoding, form, text, sizeof text);
}
/* The ID in out_u. */
EXPORT(id_parse) int w_id_parse(const char *t, size_t len, int encoding) {
  return (int)sfc_id_parse(t, len, (sfc_encoding)encoding, &out_u, &last_error);
}
/* A UUIDv7: its Unix ms in out_i, rand_a in out_u2, rand_b in out_u, its
 * canonical JSON in text() (length in out_len), its canonical text in
 * uuid7_text(). */
static sfc_uuid7 uuid7;
EXPORT(uuid7_parse) int w_uuid7_parse(const char *t, size_t len) {
  sfc_status st = sfc_uuid7_parse(t, len, &uuid7, &last_error);
  if (st != SFC_OK) return (int)st;
  out_i = uuid7.unix_ms;
  out_u = uuid7.rand_b;
  out_u2 = uuid7.rand_a;
  out_len = sfc_uuid7_json(&uuid7, text, sizeof text);
  return SFC_OK;
}
EXPORT(uuid7_text) const char *w_uuid7_text(void) {
  return uuid7.text;
}

/* ---- Decode, encode, range ---- */

/* The decode rule (sfc_layout_decode_rule) in 64-bit words: max_id,
 * epoch_us, unit_us, field_count, then each field's shift and mask. */
static uint64_t rule_words[4 + 2 * SFC_MAX_FIELDS];

EXPORT(decode_rule) const uint64_t *w_decode_rule(const sfc_layout *l) {
  sfc_decode_rule rule;
  sfc_layout_decode_rule(l, &rule);
  rule_words[0] = rule.max_id;
  rule_words[1] = (uint64_t)rule.epoch_us;
  rule_words[2] = (uint64_t)rule.unit_us;
  rule_words[3] = rule.field_count;
  for (unsigned i = 0; i < rule.field_count; i++) {
    rule_words[4 + 2 * i] = rule.shift[i];
    rule_words[5 + 2 * i] = rule.mask[i];
  }
  return rule_words;
}
/* The canonical JSON of a decoded ID in text(), its length in out_len. */
EXPORT(parts_json) int w_parts_json(const sfc_layout *l, uint64_t id) {
  sfc_status st = sfc_decode(l, id, &parts, &last_error);
  if (st != SFC_OK) return (int)st;
  out_len = sfc_parts_json(l, &parts, text, sizeof text);
  if (out_len >= sizeof text)
    return (int)sfk_fail(&last_error, SFC_INVALID_ARGUMENT,
                         "decoded JSON does not fit its buffer.");
  return SFC_OK;
}
/* The ISO-8601 time of a decoded ID in iso(), its length in out_len. */
EXPORT(parts_time) int w_parts_time(const sfc_layout *l, uint64_t id) {
  sfc_status st = sfc_decode(l, id, &parts, &last_error);
  if (st != SFC_OK) return (int)st;
  out_len = sfc_format_iso(parts.time_ms, iso, sizeof iso);
  if (out_len >= sizeof iso) out_len = sizeof iso - 1;
  return SFC_OK;
}

EXPORT(list_clear) void w_list_clear(void) {
  list_count = 0;
}
/* Adds encode's field `name` (held by the host until encode). */
EXPORT(encode_add) int w_encode_add(const char *name, int64_t value) {
  if (list_count == LIST_MAX)
    return (int)sfk_fail(&last_error, SFC_INVALID_ARGUMENT,
                         "too many fields: a layout has at most 16.");
  list[list_count++] = (sfc_node_value){name, value, SFC_SOURCE_EXPLICIT};
  return SFC_OK;
}
/* The ID in out_u. */
EXPORT(encode) int w_encode(const sfc_layout *l, int64_t time_us) {
  return (int)sfc_encode_named(l, time_us, list, list_count, &out_u,
                               &last_error);
}
/* min in out_u, max in out_u2. */
EXPORT(range) int w_range(const sfc_layout *l, int64_t t0_ms, int64_t t1_ms) {
  return (int)sfc_range(l, t0_ms, t1_ms, &out_u, &out_u2, &last_error);
}

/* ---- Generators ---- */

static sfc_value value_of(int type, int64_t i, uint64_t u, double d,
                          const char *t, size_t len) {
  sfc_value v;
  memset(&v, 0, sizeof v);
  v.type = (sfc_type)type;
  v.i = i;
  v.u = u;
  v.d = d;
  v.text = t;
  v.len = len;
  return v;
}

EXPORT(options_clear) void w_options_clear(void) {
  sfc_options_init(&options);
  list_count = 0;
}
EXPORT(options_set)
int w_options_set(const char *name, size_t name_len, int type, int64_t i,
                  uint64_t u, double d, const char *t, size_t len) {
  sfc_value v = value_of(type, i, u, d, t, len);
  return (int)sfc_options_set(&options, name, name_len, &v, &last_error);
}
/* A node value for field `name` (NULL: the layout's only node field). */
EXPORT(node_add)
int w_node_add(const char *name, int type, int64_t i, uint64_t u, double d,
               const char *t, size_t len) {
  if (list_count == LIST_MAX)
    return (int)sfk_fail(&last_error, SFC_INVALID_ARGUMENT,
                         "too many node values.");
  sfc_value v = value_of(type, i, u, d, t, len);
  sfc_status st = sfc_node_value_set(&list[list_count], name, &v, &last_error);
  if (st == SFC_OK) list_count++;
  return (int)st;
}
/* A generator from the options and node values gathered; NULL on failure. */
EXPORT(generator_new) sfc_generator *w_generator_new(const sfc_layout *l) {
  sfc_options_set_nodes(&options, list, list_count);
  sfc_generator *g = NULL;
  if (sfc_generator_new(l, &options, &g, &last_error) != SFC_OK) return NULL;
  return g;
}
/* Whether the options and node values gathered lease a node value: this
 * build runs no statements, so api.js refuses such a generator in its own
 * terms. */
EXPORT(lease_wanted) int w_lease_wanted(const sfc_layout *l) {
  sfc_options_set_nodes(&options, list, list_count);
  return sfc_lease_wanted(l, &options);
}
EXPORT(lease_table_sql) const char *w_lease_table_sql(void) {
  return sfc_lease_table_sql();
}
EXPORT(generator_free) void w_generator_free(sfc_generator *g) {
  sfc_generator_free(g);
}
/* For a generator that a call under way still uses (the host's code that
 * runs inside it may close it): freed by generator_free once that call is
 * done. */
EXPORT(generator_close) void w_generator_close(sfc_generator *g) {
  sfc_generator_close(g);
}
EXPORT(generator_check) int w_generator_check(const sfc_generator *g) {
  return (int)sfc_generator_check(g, &last_error);
}
EXPORT(now_us) int64_t w_now_us(const sfc_generator *g) {
  return sfc_generator_now_us(g);
}

/* One ID in out_u, or SFC_WAIT with out_wait. */
EXPORT(next_now) int w_next_now(sfc_generator *g) {
  out_wait = 0;
  return (int)sfc_next_now(g, &out_u, &out_wait, &last_error);
}
EXPORT(next_at) int w_next_at(sfc_generator *g, int64_t now_us) {
  out_wait = 0;
  return (int)sfc_next_at(g, now_us, &out_u, &out_wait, &last_error);
}
/* Up to n IDs into ids; how many in out_len, SFC_WAIT with out_wait. */
EXPORT(next_ids_now)
int w_next_ids_now(sfc_generator *g, uint64_t *ids, size_t n) {
  out_wait = 0;
  out_len = 0;
  return (int)sfc_next_ids_now(g, ids, n, &out_len, &out_wait, &last_error);
}
EXPORT(next_ids_at)
int w_next_ids_at(sfc_generator *g, int64_t now_us, uint64_t *ids, size_t n) {
  out_wait = 0;
  out_len = 0;
  return (int)sfc_next_ids_at(g, now_us, ids, n, &out_len, &out_wait,
                              &last_error);
}

EXPORT(layout_out) void w_layout_out(const sfc_layout *l) {
  sfk_obj made;
  sfk_layout_out(&host, l, &made);
}
EXPORT(stats_out) void w_stats_out(const sfc_generator *g) {
  sfc_stats stats;
  sfk_obj made;
  sfc_generator_stats(g, &stats);
  sfk_stats_out(&host, &stats, &made);
}
EXPORT(warnings_out) void w_warnings_out(const sfc_generator *g) {
  sfk_obj made;
  sfk_warnings_out(&host, g, &made);
}
