/*
 * glue.i — the C shared by every language of snowflake_c.i: the error a
 * wrapper sees, ID batches, and the kit (core/kit/snowflake_c_host.h)
 * reached through the language's primitives — the stats and a layout's
 * description, the generator's arguments, its warnings told once, the
 * waits of next_id and next_ids.
 *
 * Each snowflake_c_<language>.i defines the primitives declared below:
 * the kit's (a value in or out, walk a map, make a list or a map, raise,
 * wait, warn) and SWIG's own (a SWIG object in or out, a wrapper's result).
 */

%{
#include "snowflake_c_host.h"

/* An ID batch: owned by the wrapper, freed after conversion. */
typedef struct sfc_swig_batch {
  uint64_t *ids;
  size_t filled;
  int64_t wait_us;
} sfc_swig_batch;

/* The outcome of one deterministic call: an ID, or a wait. */
typedef struct sfc_swig_next {
  uint64_t id;
  int issued;
  int64_t wait_us;
} sfc_swig_next;

/* The error of one wrapper call. `error` comes first, so that a primitive
 * handed the `sfc_error *` can reach the batch whose IDs the exception
 * carries. */
typedef struct sfc_swig_error {
  sfc_error error;
  sfc_swig_batch *batch;
  uintptr_t pending; /* how the interpreter stopped a wait (Ruby: a tag) */
} sfc_swig_error;

/* Wrappers without an `sfc_error *err` parameter see this one, which never
 * fails; the others declare their own `sfc_swig_err` (typemap below). */
static const sfc_swig_error sfc_swig_err = {{SFC_OK, {0}}, NULL, 0};

/* ---- Per language (snowflake_c_<language>.i) -------------------------- */

/* The kit's primitives (sfk_host). SFC_SWIG_OBJ(p) is the wrapper's value
 * *p as the kit's sfk_obj; none of these fails but wait and warn. `raise`
 * also takes the IDs of a failed batch, whose buffer it frees, and resumes
 * an exception of the interpreter's (sfc_swig_interrupted). */
static int sfc_swig_in(void *ctx, sfk_obj o, sfc_value *out, sfc_error *err);
static const char *sfc_swig_type_of(void *ctx, sfk_obj o);
static int sfc_swig_each(void *ctx, sfk_obj map, const char *what,
                         sfk_visit visit, void *visit_ctx, sfc_error *err);
static const sfc_layout *sfc_swig_layout(void *ctx, sfk_obj o);
static int sfc_swig_out(void *ctx, const sfc_value *v, sfk_obj *out);
static int sfc_swig_list(void *ctx, sfk_obj *out);
static int sfc_swig_map(void *ctx, sfk_obj *out);
static int sfc_swig_push(void *ctx, sfk_obj list, sfk_obj v);
static int sfc_swig_put(void *ctx, sfk_obj map, const char *key, int symbol,
                        sfk_obj v);
static void sfc_swig_drop(void *ctx, sfk_obj o);
static int sfc_swig_wait(void *ctx, int64_t wait_us, sfc_error *err);
static int sfc_swig_warn(void *ctx, const char *kind, const char *text,
                         sfc_error *err);
static void sfc_swig_raise(void *ctx, const sfc_error *err);

/* SWIG's: the SWIG object `o` of type `ty` (NULL when it is not one), a
 * new one owning `p`; the wrapper's result set to, or extended by, `v` (a
 * value made here, given over). */
static void *sfc_swig_ptr(sfc_swig_obj *o, swig_type_info *ty);
static sfk_obj sfc_swig_new_ptr(void *p, swig_type_info *ty);
static void sfc_swig_set(sfc_swig_obj *result, sfk_obj v);
static void sfc_swig_append(sfc_swig_obj *result, sfk_obj v);

static const sfk_host sfc_swig_host = {
    .in = sfc_swig_in,         .type_name = sfc_swig_type_of,
    .each = sfc_swig_each,     .layout = sfc_swig_layout,
    .out = sfc_swig_out,       .list = sfc_swig_list,
    .map = sfc_swig_map,       .push = sfc_swig_push,
    .put = sfc_swig_put,       .drop = sfc_swig_drop,
    .wait = sfc_swig_wait,     .warn = sfc_swig_warn,
    .raise = sfc_swig_raise};

/* A wrapper's value read, and its type's name. */
static void sfc_swig_read(sfc_swig_obj *o, sfc_value *out) {
  sfc_swig_in(NULL, SFC_SWIG_OBJ(o), out, NULL);
}

static const char *sfc_swig_type(sfc_swig_obj *o) {
  return sfc_swig_type_of(NULL, SFC_SWIG_OBJ(o));
}

/* ---- Errors ------------------------------------------------------------ */

static void sfc_swig_raise_error(const sfc_swig_error *e) {
  sfc_swig_raise(NULL, &e->error);
}

/* An InvalidArgument raised by a typemap, before the call. */
static void sfc_swig_raise_invalid(const char *fmt, ...) {
  sfc_swig_error e;
  va_list ap;
  memset(&e, 0, sizeof e);
  e.error.status = SFC_INVALID_ARGUMENT;
  va_start(ap, fmt);
  vsnprintf(e.error.message, sizeof e.error.message, fmt, ap);
  va_end(ap);
  sfc_swig_raise_error(&e);
}

/* Raises `e` when it failed; 1 when it did not. */
static int sfc_swig_ok(sfc_swig_error *e) {
  if (e->error.status == SFC_OK) return 1;
  sfc_swig_raise_error(e);
  return 0;
}

/* A wait or a warning cut short by the interpreter (Ctrl-C, Thread#raise,
 * a warning made an error): the status is SFC_WAIT and sfc_swig_raise
 * resumes the language's own exception from `pending`. */
static void sfc_swig_interrupted(sfc_error *err, uintptr_t pending) {
  sfk_fail(err, SFC_WAIT, "interrupted by the interpreter");
  ((sfc_swig_error *)(void *)err)->pending = pending;
}

/* ---- Values out -------------------------------------------------------- */

static void sfc_swig_keep_ids(sfc_error *err, sfc_swig_batch *batch) {
  ((sfc_swig_error *)(void *)err)->batch = batch;
}

static void sfc_swig_value_out(sfc_swig_obj *result, const sfc_value *v,
                               int append) {
  sfk_obj o;
  sfc_swig_out(NULL, v, &o);
  (append ? sfc_swig_append : sfc_swig_set)(result, o);
}

/* [first, wait_us]: [ids, wait_us], or [id or none, wait_us]. */
static void sfc_swig_pair_out(sfc_swig_obj *result, sfk_obj first,
                              int64_t wait_us) {
  sfc_value w = {SFC_TYPE_INT, wait_us, 0, 0, NULL, 0, 0};
  sfk_obj pair, wait;
  sfc_swig_out(NULL, &w, &wait);
  sfc_swig_list(NULL, &pair);
  sfc_swig_push(NULL, pair, first);
  sfc_swig_push(NULL, pair, wait);
  sfc_swig_set(result, pair);
}
%}
