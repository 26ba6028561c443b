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
static uint64_t out_u;
static int64_t out_i, out_wait;
static size_t out_len;
static char text[SFC_JSON_MAX > SFC_SPEC_MAX ? SFC_JSON_MAX : SFC_SPEC_MAX];

/* What a generator is made from, gathered by the calls before
 * generator_new: the node values and options (texts stay in the host's
 * allocations until then). */
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
EXPORT(out_u) uint64_t w_out_u(void) {
  return out_u;
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
/* ---- A call's arguments, set one by one before call(row) ----
 * A slot is a value, a layout or a map; a map's pairs are the slots after
 * it that name a key. Texts stay in the host's allocations until the call
 * returns. */
static struct slot {
  sfc_value v; /* SFC_TYPE_MAP for a map, SFK_TYPE_OBJECT for a layout */
  const sfc_layout *layout;
  const char *key; /* a pair's name, NULL for an argument */
  size_t key_len;
} slots[LIST_MAX];
static size_t slot_count;
static const char *key_next;
static size_t key_next_len;

static int add_slot(sfc_value v, const sfc_layout *layout) {
  if (slot_count == LIST_MAX)
    return (int)sfk_fail(&last_error, SFC_INVALID_ARGUMENT,
                         "too many arguments.");
  slots[slot_count++] = (struct slot){v, layout, key_next, key_next_len};
  key_next = NULL;
  return SFC_OK;
}
static int host_in(void *ctx, sfk_obj o, sfc_value *v, sfc_error *err) {
  (void)ctx, (void)err;
  *v = ((const struct slot *)o)->v;
  return 0;
}
static const char *host_type_name(void *ctx, sfk_obj o) {
  (void)ctx;
  return sfc_type_name(((const struct slot *)o)->v.type);
}
static int host_each(void *ctx, sfk_obj map, const char *what, sfk_visit visit,
                     void *visit_ctx, sfc_error *err) {
  const struct slot *s = (const struct slot *)map + 1;
  (void)ctx, (void)what;
  for (; s < slots + slot_count && s->key; s++)
    if (!visit(visit_ctx, s->key, s->key_len, (sfk_obj)s, err)) return 0;
  return 1;
}
static const sfc_layout *host_layout(void *ctx, sfk_obj o) {
  (void)ctx;
  return o ? ((const struct slot *)o)->layout : NULL;
}
static const sfk_host host = {.in = host_in,
                              .type_name = host_type_name,
                              .each = host_each,
                              .layout = host_layout,
                              .out = host_out,
                              .list = host_list,
                              .map = host_list,
                              .push = host_push,
                              .put = host_put};

/* ---- The kit's calls (snowflake_c_host.h) ---- */

EXPORT(call_at) const char *w_call_at(int row) {
  const sfk_call *c = row < 0 ? NULL : sfk_call_at((size_t)row);
  return c ? c->name : NULL;
}
EXPORT(args_clear) void w_args_clear(void) {
  slot_count = 0;
  key_next = NULL;
}
static sfc_value value_of(int type, int64_t i, uint64_t u, double d,
                          const char *t, size_t len);
EXPORT(arg_value)
int w_arg_value(int type, int64_t i, uint64_t u, double d, const char *t,
                size_t len) {
  return add_slot(value_of(type, i, u, d, t, len), NULL);
}
EXPORT(arg_layout) int w_arg_layout(const sfc_layout *l) {
  return add_slot(value_of(SFK_TYPE_OBJECT, 0, 0, 0, NULL, 0), l);
}
EXPORT(arg_map) int w_arg_map(void) {
  return add_slot(value_of(SFC_TYPE_MAP, 0, 0, 0, NULL, 0), NULL);
}
/* The key of the next value, a pair of the map before it. */
EXPORT(arg_key) void w_arg_key(const char *key, size_t len) {
  key_next = key;
  key_next_len = len;
}
/* Row `row` on the arguments set: its result made through the host. */
EXPORT(call) int w_call(int row) {
  sfk_obj objs[SFK_CALL_ARGS], made;
  sfc_value values[SFK_CALL_ARGS];
  size_t n = 0;
  const sfk_call *c = row < 0 ? NULL : sfk_call_at((size_t)row);
  for (size_t k = 0; c && k < slot_count; k++)
    if (!slots[k].key && n < SFK_CALL_ARGS) {
      objs[n] = &slots[k];
      values[n++] = slots[k].v;
    }
  if (!c || n < c->required || n > c->count)
    return (int)sfk_fail(&last_error, SFC_INVALID_ARGUMENT,
                         "no such call, or not its arguments.");
  last_error.status = SFC_OK;
  if (sfk_call_run(&host, (size_t)row, objs, values, n, &made, &last_error))
    return last_error.status != SFC_OK ? (int)last_error.status
                                       : SFC_INVALID_ARGUMENT;
  return SFC_OK;
}

/* ---- Tables ---- */

/* The header's sfc_type names by number ("unknown" past the last). */
EXPORT(type_name) const char *w_type_name(int type) {
  return sfc_type_name((sfc_type)type);
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
