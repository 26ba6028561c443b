/*
 * snowflake_c.i — one SWIG interface over core/include/snowflake_c.h.
 *
 * The public header is wrapped as it is (%include below); this file only
 * adapts types:
 *   - every `sfc_error *err` parameter disappears; one %exception block turns
 *     a failed status into the target language's exception for that status
 *     (SnowflakeC::InvalidLayout in Ruby, SnowflakeC\InvalidLayout in PHP, …);
 *   - out-parameters come back as return values;
 *   - a layout argument also takes a preset name;
 *   - IDs cross as unsigned 64-bit integers (Ruby Integer; PHP int up to
 *     PHP_INT_MAX, a decimal string above — see README.md) and are read with
 *     the core's own sfc_id_parse;
 *   - the generator is an opaque handle with a destructor, whose waits are
 *     done here in the language's idiom (Ruby releases the GVL).
 * A new language needs the per-language section at the end (raise, wait and
 * a handful of conversions) and nothing else.
 */

#if defined(SWIGRUBY)
%module SnowflakeC
#else
%module snowflake_c
#endif

%include <stdint.i>

%{
#include "snowflake_c.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
%}

/* ===================================================================== */
/* Shared glue: the error every wrapper sees, options, batches            */
/* ===================================================================== */

%{
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

/* The error of one wrapper call. `error` comes first, so that a helper
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

/* Upper bound of one batch: 2^24 IDs (128 MiB). */
#define SFC_SWIG_BATCH_MAX ((size_t)1 << 24)

static sfc_status sfc_swig_fail(sfc_error *err, sfc_status status,
                                const char *fmt, ...) {
  va_list ap;
  err->status = status;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return status;
}

static void sfc_swig_keep_ids(sfc_error *err, sfc_swig_batch *batch) {
  ((sfc_swig_error *)(void *)err)->batch = batch;
}

static int sfc_swig_batch_alloc(sfc_swig_batch *b, size_t n, sfc_error *err) {
  if (n > SFC_SWIG_BATCH_MAX) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "a batch takes at most %zu IDs, asked for %zu; split it",
                  SFC_SWIG_BATCH_MAX, n);
    return 0;
  }
  b->ids = (uint64_t *)malloc((n ? n : 1) * sizeof *b->ids);
  if (!b->ids) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "out of memory for a batch of %zu IDs", n);
    return 0;
  }
  return 1;
}

/* Values by field name (sfc_node_value), with their names copied. */
typedef struct sfc_swig_named {
  sfc_node_value value[SFC_MAX_FIELDS];
  char names[SFC_MAX_FIELDS][SFC_NAME_MAX];
  size_t count;
} sfc_swig_named;

static int sfc_swig_named_add(sfc_swig_named *named, const char *name,
                              int64_t value, sfc_error *err) {
  size_t i = named->count;
  if (i == SFC_MAX_FIELDS) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "more than %d field values; a layout has no more fields",
                  SFC_MAX_FIELDS);
    return 0;
  }
  if (strlen(name) >= SFC_NAME_MAX) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "field name '%.40s…' is longer than any field's", name);
    return 0;
  }
  memcpy(named->names[i], name, strlen(name) + 1);
  named->value[i].name = named->names[i];
  named->value[i].value = value;
  named->count = i + 1;
  return 1;
}

/* Generator options, filled from a Ruby Hash or a PHP array. Names and
 * folders are copied: nothing points into the interpreter's heap. */
typedef struct sfc_swig_options {
  sfc_options opts;
  sfc_swig_named node;
  char state_dir[4096];
  char guard_dir[4096];
} sfc_swig_options;

typedef enum sfc_swig_kind {
  SFC_SWIG_NIL,
  SFC_SWIG_INT,
  SFC_SWIG_TEXT,
  SFC_SWIG_BOOL,
  SFC_SWIG_FLOAT,
  SFC_SWIG_OTHER
} sfc_swig_kind;

/* One option value, as the language gave it. */
typedef struct sfc_swig_value {
  sfc_swig_kind kind;
  int64_t i; /* INT, BOOL */
  double d;  /* FLOAT */
  const char *text;
  size_t len; /* TEXT: its real length, NUL bytes included */
} sfc_swig_value;

/* Text values go to the core as C text: a NUL inside is refused (with its
 * position), never the end. */
static int sfc_swig_text_ok(const char *what, const sfc_swig_value *v,
                            sfc_error *err) {
  return v->kind != SFC_SWIG_TEXT ||
         sfc_text_check(what, v->text, v->len, err) == SFC_OK;
}

/* A duration option in ms (an integer, or a float for fractions of a ms):
 * the core rounds it up to whole ms and checks the option's range. */
static int sfc_swig_duration_option(const char *key, const sfc_swig_value *v,
                                    int64_t *out, sfc_error *err) {
  double ms;
  if (v->kind == SFC_SWIG_INT) {
    ms = (double)v->i;
  } else if (v->kind == SFC_SWIG_FLOAT) {
    ms = v->d;
  } else {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "option '%s' must be a finite number of milliseconds", key);
    return 0;
  }
  return sfc_duration_ms_from_double(key, ms, out, err) == SFC_OK;
}

/* A true/false option. */
static int sfc_swig_bool_option(const char *key, const sfc_swig_value *v,
                                int *out, sfc_error *err) {
  if (v->kind != SFC_SWIG_BOOL) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "option '%s' must be true or false", key);
    return 0;
  }
  *out = v->i != 0;
  return 1;
}

/* A folder option, copied into `buf` (4096 bytes). */
static int sfc_swig_path_option(const char *key, const sfc_swig_value *v,
                                char *buf, const char **out, sfc_error *err) {
  if (v->kind != SFC_SWIG_TEXT || v->len >= 4096) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "option '%s' must be a folder's path, text shorter than "
                  "4096 bytes",
                  key);
    return 0;
  }
  memcpy(buf, v->text, v->len);
  buf[v->len] = '\0';
  *out = buf;
  return 1;
}

static void sfc_swig_options_init(sfc_swig_options *o) {
  memset(o, 0, sizeof *o);
  sfc_options_init(&o->opts);
}

/* A field value for sfc_encode_named: an integer or decimal text. */
static int sfc_swig_set_field(sfc_swig_named *named, const char *name,
                              const sfc_swig_value *v, sfc_error *err) {
  uint64_t u;
  if (!sfc_swig_text_ok(name, v, err)) return 0;
  if (v->kind == SFC_SWIG_INT)
    return sfc_swig_named_add(named, name, v->i, err);
  if (v->kind != SFC_SWIG_TEXT) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "the value of field '%.64s' must be an integer", name);
    return 0;
  }
  if (sfc_id_parse(v->text, &u, err) != SFC_OK) return 0;
  if (u > (uint64_t)INT64_MAX) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "the value of field '%.64s' is above 2^63 - 1; use Parts "
                  "and encode for 64-bit fields",
                  name);
    return 0;
  }
  return sfc_swig_named_add(named, name, (int64_t)u, err);
}

/* A node value: an integer >= 0, SFC_NODE_AUTO, SFC_NODE_HOST, or text for
 * sfc_node_value_parse ("3", "auto", "host", "env:NAME"). */
static int sfc_swig_set_node(sfc_swig_options *o, const char *name,
                             const sfc_swig_value *v, sfc_error *err) {
  int64_t value;
  if (!sfc_swig_text_ok(name, v, err)) return 0;
  if (v->kind == SFC_SWIG_INT &&
      (v->i >= 0 || v->i == SFC_NODE_AUTO || v->i == SFC_NODE_HOST)) {
    value = v->i;
  } else if (v->kind == SFC_SWIG_TEXT) {
    if (sfc_node_value_parse(v->text, &value, err) != SFC_OK) return 0;
  } else {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "node value of '%.64s' must be an integer >= 0, \"auto\", "
                  "\"host\" (NODE_AUTO, NODE_HOST) or \"env:NAME\"",
                  name);
    return 0;
  }
  if (!sfc_swig_named_add(&o->node, name, value, err)) return 0;
  o->opts.node = o->node.value;
  o->opts.node_count = o->node.count;
  return 1;
}

/* Every option but `node`, which the language walks itself. */
static int sfc_swig_set_option(sfc_swig_options *o, const char *key,
                               const sfc_swig_value *v, sfc_error *err) {
  sfc_options *opts = &o->opts;
  if (v->kind == SFC_SWIG_NIL) return 1; /* the library's default */
  if (!sfc_swig_text_ok(key, v, err)) return 0;
  if (strcmp(key, "rollback") == 0) {
    if (v->kind == SFC_SWIG_TEXT)
      return sfc_rollback_parse(v->text, &opts->rollback, err) == SFC_OK;
    if (v->kind == SFC_SWIG_INT && v->i >= SFC_ROLLBACK_DEFAULT &&
        v->i <= SFC_ROLLBACK_BORROW) {
      opts->rollback = (sfc_rollback)v->i;
      return 1;
    }
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "option 'rollback' must be one of \"default\", \"error\", "
                  "\"wait\", \"clock\", \"borrow\"");
    return 0;
  }
  if (strcmp(key, "max_wait_ms") == 0)
    return sfc_swig_duration_option(key, v, &opts->max_wait_ms, err);
  if (strcmp(key, "max_drift_ms") == 0)
    return sfc_swig_duration_option(key, v, &opts->max_drift_ms, err);
  if (strcmp(key, "state_reserve_ms") == 0)
    return sfc_swig_duration_option(key, v, &opts->state_reserve_ms, err);
  if (strcmp(key, "random_start") == 0)
    return sfc_swig_bool_option(key, v, &opts->random_start, err);
  if (strcmp(key, "time_source") == 0) {
    if (v->kind == SFC_SWIG_TEXT)
      return sfc_time_source_parse(v->text, &opts->time_source, err) == SFC_OK;
    if (v->kind == SFC_SWIG_INT &&
        (v->i == SFC_TIME_WALL || v->i == SFC_TIME_MONOTONIC))
      opts->time_source = (sfc_time_source)v->i;
    else {
      sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                    "option 'time_source' must be \"wall\" or \"monotonic\"");
      return 0;
    }
    return 1;
  }
  if (strcmp(key, "state_dir") == 0)
    return sfc_swig_path_option(key, v, o->state_dir, &opts->state_dir, err);
  if (strcmp(key, "guard_dir") == 0)
    return sfc_swig_path_option(key, v, o->guard_dir, &opts->guard_dir, err);
  /* `guard` reads as the user means it; the core's flag is its negation. */
  if (strcmp(key, "guard") == 0) {
    int on;
    if (!sfc_swig_bool_option(key, v, &on, err)) return 0;
    opts->guard_off = !on;
    return 1;
  }
  sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                "unknown option '%.64s'; known: node, rollback, max_wait_ms, "
                "max_drift_ms, random_start, time_source, state_dir, "
                "state_reserve_ms, guard, guard_dir",
                key);
  return 0;
}

/* The generator handle: `close` frees the core generator at once; any call
 * after it fails cleanly instead of touching freed memory. */
typedef struct sfc_swig_generator {
  sfc_generator *gen;
} sfc_swig_generator;

static sfc_generator *sfc_swig_open(sfc_swig_generator *self, sfc_error *err) {
  if (!self->gen)
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "this generator is closed; create a new one");
  return self->gen;
}

/* A wait cut short by the interpreter (Ctrl-C, Thread#raise): the status
 * is SFC_WAIT and sfc_swig_raise resumes the language's own exception from
 * `pending`. */
static void sfc_swig_interrupted(sfc_error *err, uintptr_t pending) {
  sfc_swig_fail(err, SFC_WAIT, "interrupted while waiting for the clock");
  ((sfc_swig_error *)(void *)err)->pending = pending;
}

/* Per language (snowflake_c_<language>.i): raise the exception for `e`
 * (status, message, and the IDs of a failed batch, whose buffer it frees),
 * and wait about `wait_us` letting other threads run — returning 0, or
 * non-zero after sfc_swig_interrupted when the interpreter has an exception
 * to raise. */
static void sfc_swig_raise(const sfc_swig_error *e);
static int sfc_swig_wait(int64_t wait_us, sfc_error *err);

/* An InvalidArgument raised by a typemap, before the call. */
static void sfc_swig_raise_invalid(const char *fmt, ...) {
  sfc_swig_error e;
  va_list ap;
  memset(&e, 0, sizeof e);
  e.error.status = SFC_INVALID_ARGUMENT;
  va_start(ap, fmt);
  vsnprintf(e.error.message, sizeof e.error.message, fmt, ap);
  va_end(ap);
  sfc_swig_raise(&e);
}
%}

/* Pointers the core dereferences: never NULL (nil, null). */
%typemap(check) const sfc_parts *in, const sfc_parts *parts {
  if (!$1) {
    sfc_swig_raise_invalid("argument $argnum of $symname must be a Parts "
                           "object (from decode or Parts.new), not nil/null");
    SWIG_fail;
  }
}

/* ===================================================================== */
/* The one exception mapping                                             */
/* ===================================================================== */

/* `sfc_swig_err` is the wrapper's own (typemap below) or the file-scope one
 * that never fails. sfc_swig_raise is defined per language at the end. */
%exception {
  $action
  if (sfc_swig_err.error.status != SFC_OK) {
    sfc_swig_raise(&sfc_swig_err);
    SWIG_fail;
  }
}

/* Declared without braces so that %exception sees it. */
%typemap(in, numinputs = 0, noblock = 1) sfc_error *err {
  sfc_swig_error sfc_swig_err = {{SFC_OK, {0}}, NULL, 0};
  $1 = &sfc_swig_err.error;
}

/* ===================================================================== */
/* What is wrapped                                                       */
/* ===================================================================== */

#define SFC_API

/* Replaced by the handle class and its typemaps. */
%ignore sfc_error;
%ignore sfc_options;
%ignore sfc_options_init;
%ignore sfc_node_value;
%ignore sfc_stats;
%ignore sfc_generator;
%ignore sfc_generator_new;
%ignore sfc_generator_free;
%ignore sfc_next;
%ignore sfc_next_ids;
%ignore sfc_next_at;
%ignore sfc_next_ids_at;
%ignore sfc_next_now;
%ignore sfc_next_ids_now;
%ignore sfc_generator_now_us;
%ignore sfc_generator_layout;
%ignore sfc_generator_stats;
%ignore sfc_pause;
%ignore sfc_generator_memory;
%ignore sfc_id_parse_n; /* the ID typemaps call it with the real length */
%ignore sfc_text_check;
%ignore sfc_duration_ms; /* max_wait_ms & co. take fractions of a ms */
%ignore sfc_duration_ms_from_double;
/* The string forms take the encoding by name: format_id, parse_id and
 * decode_as below. */
%ignore sfc_encoding_by_name;
%ignore sfc_id_format;
%ignore sfc_id_parse_as;
%ignore sfc_layout::fields;
%ignore sfc_parts::values;

/* Values come from the library, never from setters. */
%immutable sfc_layout::field_count;
%immutable sfc_layout::total_bits;
%immutable sfc_layout::epoch_ms;
%immutable sfc_layout::unit_us;
%immutable sfc_layout::time_index;
%immutable sfc_layout::seq_index;
%immutable sfc_layout::clock_index;
%immutable sfc_field::name;
%immutable sfc_field::kind;
%immutable sfc_field::bits;
%immutable sfc_field::shift;
%immutable sfc_field::max;
%immutable sfc_layout_info::ids_per_second;
%immutable sfc_layout_info::node_capacity;
%immutable sfc_layout_info::time_end_ms;
%immutable sfc_layout_info::max_id;
%immutable sfc_parts::id;
%immutable sfc_parts::time_ms;
%nodefaultctor sfc_layout;
%nodefaultctor sfc_field;
%nodefaultctor sfc_layout_info;

#if defined(SWIGRUBY)
%rename("%(strip:[sfc_])s", %$isfunction) "";
%rename("%(strip:[SFC_])s", %$isconstant) "";
%rename("%(strip:[SFC_])s", %$isenumitem) "";
%rename(Layout) sfc_layout;
%rename(Field) sfc_field;
%rename(LayoutInfo) sfc_layout_info;
%rename(Parts) sfc_parts;
%rename(Generator) sfc_swig_generator;
%rename("closed?") sfc_swig_generator::closed;
#else
%rename(SfcLayout) sfc_layout;
%rename(SfcField) sfc_field;
%rename(SfcLayoutInfo) sfc_layout_info;
%rename(SfcParts) sfc_parts;
%rename(SfcGenerator) sfc_swig_generator;
#endif

/* --- language-specific typemaps (sfc_status results, out-parameters, IDs,
 *     layouts, options, batches, stats) --- */
#if defined(SWIGRUBY)
%include "snowflake_c_ruby.i"
#elif defined(SWIGPHP)
%include "snowflake_c_php.i"
#else
#error "snowflake_c.i: add the typemaps for this language (see snowflake_c_ruby.i)"
#endif

%include "snowflake_c.h"

/* ===================================================================== */
/* Type adapters                                                         */
/* ===================================================================== */

%extend sfc_layout {
  /* The i-th field, most significant first. */
  sfc_field field(unsigned i, sfc_error *err) {
    sfc_field none;
    if (i < $self->field_count) return $self->fields[i];
    memset(&none, 0, sizeof none);
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "field index %u is out of range: the layout has %u fields",
                  i, $self->field_count);
    return none;
  }
}

%extend sfc_parts {
  /* The value of the field `name` (the raw tick count for `time`). */
  uint64_t value(const sfc_layout *layout, const char *name, sfc_error *err) {
    int i = sfc_layout_field_index(layout, name);
    if (i < 0) {
      sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                    "the layout has no field '%.64s'", name);
      return 0;
    }
    return $self->values[i];
  }
  /* Sets the field `name` for sfc_encode, which checks that it fits. */
  void set_value(const sfc_layout *layout, const char *name, uint64_t value,
                 sfc_error *err) {
    int i = sfc_layout_field_index(layout, name);
    if (i < 0) {
      sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                    "the layout has no field '%.64s'", name);
      return;
    }
    $self->values[i] = value;
  }
}

/* The string forms, with the encoding by name ("base62"). */
%{
static sfc_status sfc_swig_encoding(const char *name, sfc_encoding *out,
                                    sfc_error *err) {
  return sfc_encoding_by_name(name, strlen(name), out, err);
}

static size_t sfc_format_id(uint64_t id, const char *name, char *buf,
                            size_t cap, sfc_error *err, bool pad) {
  sfc_encoding enc;
  buf[0] = '\0';
  if (sfc_swig_encoding(name, &enc, err) != SFC_OK) return 0;
  return sfc_id_format(id, enc, pad ? 0 : SFC_FORMAT_SHORTEST, buf, cap);
}

static sfc_status sfc_parse_id(const char *text, const char *name,
                               uint64_t *id, sfc_error *err) {
  sfc_encoding enc;
  if (sfc_swig_encoding(name, &enc, err) != SFC_OK) return err->status;
  return sfc_id_parse_as(text, strlen(text), enc, id, err);
}

static sfc_status sfc_decode_as(const sfc_layout *layout, const char *text,
                                const char *name, sfc_parts *out,
                                sfc_error *err) {
  uint64_t id;
  if (sfc_parse_id(text, name, &id, err) != SFC_OK) return err->status;
  return sfc_decode(layout, id, out, err);
}
%}

/* The ID's text in the encoding `name`: fixed width (sorts as the IDs do),
 * or the shortest form when `pad` is false. */
size_t sfc_format_id(uint64_t id, const char *name, char *buf, size_t cap,
                     sfc_error *err, bool pad = true);
/* The ID that `text` stands for in the encoding `name`, either form. */
sfc_status sfc_parse_id(const char *text, const char *name, uint64_t *id,
                        sfc_error *err);
/* sfc_decode of an ID given as text in the encoding `name`. */
sfc_status sfc_decode_as(const sfc_layout *layout, const char *text,
                         const char *name, sfc_parts *out, sfc_error *err);

/* The generator: an opaque handle. */
struct sfc_swig_generator {};

%newobject sfc_swig_generator::sfc_swig_generator;

%extend sfc_swig_generator {
  /* `err` before the optional `opts`: C++ rules for default arguments. */
  sfc_swig_generator(const sfc_layout *layout, sfc_error *err,
                     const sfc_swig_options *opts = NULL) {
    sfc_swig_generator *self;
    sfc_generator *gen;
    sfc_options defaults;
    sfc_options_init(&defaults);
    if (sfc_generator_new(layout, opts ? &opts->opts : &defaults, &gen,
                          err) != SFC_OK)
      return NULL;
    self = (sfc_swig_generator *)malloc(sizeof *self);
    if (!self) {
      sfc_generator_free(gen);
      sfc_swig_fail(err, SFC_INVALID_ARGUMENT, "out of memory");
      return NULL;
    }
    self->gen = gen;
    return self;
  }

  ~sfc_swig_generator() {
    sfc_generator_free($self->gen);
    free($self);
  }

  /* Releases the node value and writes the state file now. */
  void close() {
    sfc_generator_free($self->gen);
    $self->gen = NULL;
  }

  bool closed() { return $self->gen == NULL; }

  /* The next ID, waiting for the clock in the language's idiom. */
  uint64_t next_id(sfc_error *err) {
    uint64_t id = 0;
    for (;;) {
      int64_t wait_us = 0;
      sfc_generator *gen = sfc_swig_open($self, err);
      if (!gen || sfc_next_now(gen, &id, &wait_us, err) != SFC_WAIT) return id;
      if (sfc_swig_wait(wait_us, err) != 0) return 0;
    }
  }

  /* n consecutive IDs. On failure the exception carries those issued. */
  void next_ids(size_t n, sfc_swig_batch *ids, sfc_error *err) {
    if (!sfc_swig_batch_alloc(ids, n, err)) return;
    while (ids->filled < n) {
      size_t got = 0;
      int64_t wait_us = 0;
      sfc_status st;
      sfc_generator *gen = sfc_swig_open($self, err);
      if (!gen) break;
      st = sfc_next_ids_now(gen, ids->ids + ids->filled, n - ids->filled, &got,
                            &wait_us, err);
      ids->filled += got;
      if (st != SFC_WAIT) break;
      if (sfc_swig_wait(wait_us, err) != 0) break;
    }
    if (err->status != SFC_OK) sfc_swig_keep_ids(err, ids);
  }

  /* The deterministic entry: an ID for the clock reading `now_us`, or how
   * long to wait. Never sleeps. */
  sfc_swig_next next_at(int64_t now_us, sfc_error *err) {
    sfc_swig_next r = {0, 0, 0};
    sfc_generator *gen = sfc_swig_open($self, err);
    if (gen && sfc_next_at(gen, now_us, &r.id, &r.wait_us, err) == SFC_OK)
      r.issued = 1;
    return r;
  }

  /* The deterministic batch: the IDs issued and the wait that stopped it. */
  void next_ids_at(int64_t now_us, size_t n, sfc_swig_batch *ids_wait,
                   sfc_error *err) {
    sfc_generator *gen = sfc_swig_open($self, err);
    if (!gen || !sfc_swig_batch_alloc(ids_wait, n, err)) return;
    if (sfc_next_ids_at(gen, now_us, ids_wait->ids, n, &ids_wait->filled,
                        &ids_wait->wait_us, err) == SFC_OK)
      ids_wait->wait_us = 0;
    if (err->status != SFC_OK) sfc_swig_keep_ids(err, ids_wait);
  }

  /* The generator's clock, Unix µs. */
  int64_t now_us(sfc_error *err) {
    sfc_generator *gen = sfc_swig_open($self, err);
    return gen ? sfc_generator_now_us(gen) : 0;
  }

  sfc_layout layout(sfc_error *err) {
    sfc_layout copy;
    sfc_generator *gen = sfc_swig_open($self, err);
    if (gen) return *sfc_generator_layout(gen);
    memset(&copy, 0, sizeof copy);
    return copy;
  }

  sfc_stats stats(sfc_error *err) {
    sfc_stats s;
    sfc_generator *gen = sfc_swig_open($self, err);
    memset(&s, 0, sizeof s);
    if (gen) sfc_generator_stats(gen, &s);
    return s;
  }
}
