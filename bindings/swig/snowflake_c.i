/*
 * snowflake_c.i — one SWIG interface over core/include/snowflake_c.h.
 *
 * The public header is wrapped as it is (%include below); this file only
 * adapts types:
 *   - every `sfc_error *err` parameter disappears; one %exception block turns
 *     a failed status into the target language's exception for that status,
 *     one class per error of the core's status table (sfc_status_at);
 *   - out-parameters come back as return values;
 *   - a layout argument also takes a preset name;
 *   - IDs cross as unsigned 64-bit integers (Ruby Integer; PHP int up to
 *     PHP_INT_MAX, a decimal string above — see README.md) and are read with
 *     the core's own sfc_id_parse;
 *   - the generator is an opaque handle with a destructor, made from the
 *     core's option table (sfc_options_set), node values
 *     (sfc_node_value_set) and layout rule (sfc_layout_resolve); its stats
 *     and a layout's description are built by walking the core's tables;
 *     what the core has to tell of it (sfc_generator_warning_at) becomes a
 *     warning of the language at creation, once per text.
 * The shared C is glue.i, the shared typemaps typemaps.i; a language adds
 * snowflake_c_<language>.i: the primitives glue.i declares (raise, wait,
 * warn, convert a value, walk a map, make a list or a map).
 */

#if defined(SWIGRUBY)
%module SnowflakeC
#else
%module snowflake_c
#endif

%include <stdint.i>

%{
#include "snowflake_c.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
%}

/* A value of the language, as the glue sees it; SFC_SWIG_RESULT gives the
 * wrapper's result as one (Ruby: VALUE vresult; PHP: zval *return_value). */
#if defined(SWIGRUBY)
%{
typedef VALUE sfc_swig_obj;
#define SFC_SWIG_RESULT(r) (&(r))
#define SFC_SWIG_OBJ(p) ((sfk_obj)(uintptr_t)*(p))
%}
#elif defined(SWIGPHP)
%{
typedef zval sfc_swig_obj;
#define SFC_SWIG_RESULT(r) (r)
#define SFC_SWIG_OBJ(p) ((sfk_obj)(p))
%}
#endif

%include "glue.i"

/* ===================================================================== */
/* The one exception mapping                                             */
/* ===================================================================== */

/* `sfc_swig_err` is the wrapper's own (typemap below) or the file-scope one
 * that never fails. sfc_swig_raise is defined per language at the end. */
%exception {
  $action
  if (sfc_swig_err.error.status != SFC_OK) {
    sfc_swig_raise_error(&sfc_swig_err);
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

/* Replaced by the handle class, its typemaps and the glue. */
%ignore sfc_error;
%ignore sfc_options;
%ignore sfc_options_init;
%ignore sfc_options_set;
%ignore sfc_options_set_id;
%ignore sfc_options_set_nodes;
%ignore sfc_options_get;
%ignore SFC_OPTIONS_WORDS;
%ignore sfc_node_value;
%ignore sfc_node_value_set;
%ignore sfc_layout_resolve;
%ignore sfc_value;
%ignore sfc_layout_fact;
%ignore sfc_field_fact;
%ignore sfc_stats_fact;
%ignore sfc_stats_entry;
%ignore sfc_stats;
%ignore sfc_stats_uint;
%ignore sfc_stats_int;
%ignore sfc_stats_text;
%ignore SFC_STATS_WORDS;
%ignore sfc_generator;
%ignore sfc_generator_new;
%ignore sfc_generator_free;
%ignore sfc_generator_close;
/* For hosts of their own (a shared generator) and bindings that issue the
 * common case or split IDs themselves (the fast rule, the decode rule):
 * nothing a script calls. */
%ignore sfc_generator_new_shared;
%ignore sfc_generator_shared_size;
%ignore sfc_generator_fast_rule;
%ignore sfc_fast_rule;
%ignore sfc_layout_decode_rule;
%ignore sfc_decode_rule;
%ignore sfc_generator_may_block;
%ignore sfc_generator_check;
%ignore sfc_generator_warning_at; /* said at creation (sfk_tell) */
%ignore sfc_warning_kind_at;
/* Leases need a database driver of the host's: not a script's yet. */
%ignore sfc_lease;
%ignore sfc_lease_step;
%ignore sfc_lease_query;
%ignore sfc_lease_stats;
%ignore sfc_lease_table_sql;
%ignore sfc_lease_new;
%ignore sfc_lease_wanted;
%ignore sfc_lease_due;
%ignore sfc_lease_done;
%ignore sfc_lease_failed;
%ignore sfc_lease_acquired;
%ignore sfc_lease_generator_new;
%ignore sfc_lease_valid;
%ignore sfc_lease_release;
%ignore sfc_lease_stats_get;
%ignore sfc_lease_stats_fact_at;
%ignore sfc_lease_stats_fact;
%ignore sfc_lease_stats_uint;
%ignore sfc_lease_stats_int;
%ignore sfc_lease_stats_text;
%ignore SFC_LEASE_STATS_WORDS;
%ignore sfc_lease_free;
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
%ignore sfc_text_check;
/* The string forms take the encoding by name: format_id, parse_id and
 * decode_as below. */
%ignore sfc_encoding_by_name;
%ignore sfc_id_format;
%ignore sfc_id_parse; /* called by parse_id below and the ID typemaps */
/* The encodings as data are for bindings that format in their own language. */
%ignore sfc_encoding_info;
%ignore sfc_encoding_at;
%ignore sfc_layout::fields;
%ignore sfc_parts::values;
%ignore sfc_option_info::choices;

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
%immutable sfc_uuid7::text;
%immutable sfc_uuid7::unix_ms;
%immutable sfc_uuid7::rand_a;
%immutable sfc_uuid7::rand_b;
%immutable sfc_parts::id;
%immutable sfc_parts::time_ms;
/* The core's tables, read-only: status_at, option_at, rollback_at,
 * *_fact_at. */
%immutable sfc_status_info::status;
%immutable sfc_status_info::name;
%immutable sfc_status_info::message;
%immutable sfc_status_info::is_error;
%immutable sfc_option_info::option;
%immutable sfc_option_info::name;
%immutable sfc_option_info::type;
%immutable sfc_option_info::default_text;
%immutable sfc_option_info::min;
%immutable sfc_option_info::max;
%immutable sfc_option_info::doc;
%immutable sfc_rollback_info::rollback;
%immutable sfc_rollback_info::name;
%immutable sfc_rollback_info::max_wait_ms;
%immutable sfc_rollback_info::max_drift_ms;
%immutable sfc_rollback_info::needs;
%immutable sfc_rollback_info::doc;
%immutable sfc_fact_info::name;
%immutable sfc_fact_info::type;
%immutable sfc_fact_info::doc;
%immutable sfc_fact_info::metric;
%immutable sfc_fact_info::metric_name;
%immutable sfc_fact_info::metric_help;
%nodefaultctor sfc_layout;
%nodefaultctor sfc_field;
%nodefaultctor sfc_layout_info;
%nodefaultctor sfc_status_info;
%nodefaultctor sfc_option_info;
%nodefaultctor sfc_rollback_info;
%nodefaultctor sfc_fact_info;
%nodefaultctor sfc_uuid7;

#if defined(SWIGRUBY)
%rename("%(strip:[sfc_])s", %$isfunction) "";
%rename("%(strip:[SFC_])s", %$isconstant) "";
%rename("%(strip:[SFC_])s", %$isenumitem) "";
%rename(Layout) sfc_layout;
%rename(Field) sfc_field;
%rename(LayoutInfo) sfc_layout_info;
%rename(Parts) sfc_parts;
%rename(Uuid7) sfc_uuid7;
%rename(StatusInfo) sfc_status_info;
%rename(OptionInfo) sfc_option_info;
%rename(RollbackInfo) sfc_rollback_info;
%rename(FactInfo) sfc_fact_info;
%rename(Generator) sfc_swig_generator;
%rename("closed?") sfc_swig_generator::closed;
#else
%rename(SfcLayout) sfc_layout;
%rename(SfcField) sfc_field;
%rename(SfcLayoutInfo) sfc_layout_info;
%rename(SfcParts) sfc_parts;
%rename(SfcUuid7) sfc_uuid7;
%rename(SfcStatusInfo) sfc_status_info;
%rename(SfcOptionInfo) sfc_option_info;
%rename(SfcRollbackInfo) sfc_rollback_info;
%rename(SfcFactInfo) sfc_fact_info;
%rename(SfcGenerator) sfc_swig_generator;
#endif

/* The language's primitives (glue.i), exception classes and waits. */
#if defined(SWIGRUBY)
%include "snowflake_c_ruby.i"
#elif defined(SWIGPHP)
%include "snowflake_c_php.i"
#else
#error "snowflake_c.i: add this language's primitives (see snowflake_c_ruby.i)"
#endif

%include "typemaps.i"

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
    sfk_fail(err, SFC_INVALID_ARGUMENT,
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
      sfk_fail(err, SFC_INVALID_ARGUMENT,
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
      sfk_fail(err, SFC_INVALID_ARGUMENT,
               "the layout has no field '%.64s'", name);
      return;
    }
    $self->values[i] = value;
  }
}

/* The string forms, with the encoding by name ("base62"), and a layout's
 * description: a map of the core's layout facts. */
%{
static sfc_status sfc_swig_encoding(const char *name, sfc_encoding *out,
                                    sfc_error *err) {
  return sfc_encoding_by_name(name, strlen(name), out, err);
}

/* `pad` is the core's flags, from typemaps.i's reading of nil/null, true
 * or false. */
static size_t sfc_format_id(uint64_t id, const char *name, char *buf,
                            size_t cap, sfc_error *err, unsigned pad) {
  sfc_encoding enc;
  buf[0] = '\0';
  if (sfc_swig_encoding(name, &enc, err) != SFC_OK) return 0;
  return sfc_id_format(id, enc, pad, buf, cap);
}

static sfc_status sfc_parse_id(const char *text, const char *name,
                               uint64_t *id, sfc_error *err) {
  sfc_encoding enc;
  if (sfc_swig_encoding(name, &enc, err) != SFC_OK) return err->status;
  return sfc_id_parse(text, strlen(text), enc, id, err);
}

static sfc_status sfc_decode_as(const sfc_layout *layout, const char *text,
                                const char *name, sfc_parts *out,
                                sfc_error *err) {
  uint64_t id;
  if (sfc_parse_id(text, name, &id, err) != SFC_OK) return err->status;
  return sfc_decode(layout, id, out, err);
}

typedef struct sfc_swig_description {
  sfc_layout layout;
} sfc_swig_description;

static sfc_swig_description sfc_describe(const sfc_layout *layout) {
  sfc_swig_description d;
  d.layout = *layout;
  return d;
}
%}

/* The ID's text in the encoding `name`: by default (`pad` nil/null or not
 * given) the encoding's default form, dec the plain number and the others
 * fixed width (they sort as the IDs do); `pad` true the fixed width in any
 * encoding (dec's 20 digits), false the shortest form. */
size_t sfc_format_id(uint64_t id, const char *name, char *buf, size_t cap,
                     sfc_error *err, unsigned pad = 0);
/* The ID that `text` stands for in the encoding `name`, either form. */
sfc_status sfc_parse_id(const char *text, const char *name, uint64_t *id,
                        sfc_error *err);
/* sfc_decode of an ID given as text in the encoding `name`. */
sfc_status sfc_decode_as(const sfc_layout *layout, const char *text,
                         const char *name, sfc_parts *out, sfc_error *err);
/* The layout's facts by name (sfc_layout_fact_at): name, spec, epoch_ms, …,
 * fields. */
sfc_swig_description sfc_describe(const sfc_layout *layout);

/* ===================================================================== */
/* The generator                                                         */
/* ===================================================================== */

/* An opaque handle: `gen` is NULL once closed, and the core answers every
 * call on it (sfc_generator_check, the sfc_next family). close() frees at
 * once: the core is never called with the interpreter's lock released, and
 * a call reads `gen` anew after each wait (when other threads and signal
 * handlers run; sfk_next_id), never across one. */
%{
typedef struct sfc_swig_generator {
  sfc_generator *gen;
} sfc_swig_generator;
%}

struct sfc_swig_generator {};

%newobject sfc_swig_generator::sfc_swig_generator;

%extend sfc_swig_generator {
  /* (options), or (a preset's name or a Layout object, options). */
  sfc_swig_generator(sfc_error *err, sfc_swig_obj *first = NULL,
                     sfc_swig_obj *opts = NULL) {
    sfc_swig_generator *self = NULL;
    sfk_obj f = first ? SFC_SWIG_OBJ(first) : NULL;
    sfk_obj o = opts ? SFC_SWIG_OBJ(opts) : NULL;
    sfc_generator *gen;
    if (sfk_generator_new(&sfc_swig_host, first ? &f : NULL, opts ? &o : NULL,
                          &gen, err) != SFC_OK)
      return NULL;
    if ((self = (sfc_swig_generator *)malloc(sizeof *self)) != NULL)
      self->gen = gen;
    else {
      sfc_generator_free(gen);
      sfk_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
    }
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

  /* Closed by close(), or by a newer generator of this process that took
   * the value over. */
  bool closed() {
    return $self->gen == NULL || sfc_generator_closed($self->gen);
  }

  /* The next ID, waiting for the clock in the language's idiom. */
  uint64_t next_id(sfc_error *err) {
    uint64_t id = 0;
    sfk_next_id(&sfc_swig_host, &$self->gen, &id, err);
    return id;
  }

  /* n consecutive IDs. On failure the exception carries those issued. */
  void next_ids(size_t n, sfc_swig_batch *ids, sfc_error *err) {
    if (!(ids->ids = sfk_ids_alloc(n, err))) return;
    if (sfk_next_ids(&sfc_swig_host, &$self->gen, ids->ids, n, &ids->filled,
                     err) != SFC_OK)
      sfc_swig_keep_ids(err, ids);
  }

  /* The deterministic entry: an ID for the clock reading `now_us`, or how
   * long to wait. Never sleeps. */
  sfc_swig_next next_at(int64_t now_us, sfc_error *err) {
    sfc_swig_next r = {0, 0, 0};
    if (sfc_next_at($self->gen, now_us, &r.id, &r.wait_us, err) == SFC_OK)
      r.issued = 1;
    return r;
  }

  /* The deterministic batch: the IDs issued and the wait that stopped it. */
  void next_ids_at(int64_t now_us, size_t n, sfc_swig_batch *ids_wait,
                   sfc_error *err) {
    if (!(ids_wait->ids = sfk_ids_alloc(n, err))) return;
    if (sfc_next_ids_at($self->gen, now_us, ids_wait->ids, n,
                        &ids_wait->filled, &ids_wait->wait_us,
                        err) == SFC_OK)
      ids_wait->wait_us = 0;
    if (err->status != SFC_OK) sfc_swig_keep_ids(err, ids_wait);
  }

  /* The generator's clock, Unix µs. */
  int64_t now_us(sfc_error *err) {
    return sfc_generator_check($self->gen, err) == SFC_OK
               ? sfc_generator_now_us($self->gen)
               : 0;
  }

  sfc_layout layout(sfc_error *err) {
    sfc_layout copy;
    memset(&copy, 0, sizeof copy);
    if (sfc_generator_check($self->gen, err) == SFC_OK)
      copy = *sfc_generator_layout($self->gen);
    return copy;
  }

  sfc_stats stats(sfc_error *err) {
    sfc_stats s;
    memset(&s, 0, sizeof s);
    if (sfc_generator_check($self->gen, err) == SFC_OK)
      sfc_generator_stats($self->gen, &s);
    return s;
  }
}
