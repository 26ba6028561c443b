/*
 * snowflake_c_php.i — the PHP side of snowflake_c.i: exceptions, waiting,
 * and the conversions SWIG cannot guess. Included by snowflake_c.i; not an
 * interface of its own.
 *
 * PHP's int is signed 64-bit: an ID up to PHP_INT_MAX (every preset until
 * at least 2080) comes back as an int, a larger one as a decimal string.
 * IDs go in as a non-negative int or a decimal string.
 */

%{
#include <ctype.h>
#include <errno.h>

#include "zend_exceptions.h"

/* [0] SnowflakeC\SnowflakeError, [status] its subclass for that status. */
static zend_class_entry *sfc_swig_ce[SFC_WAIT];

static void sfc_swig_php_id(zval *z, uint64_t id) {
  if (id <= (uint64_t)ZEND_LONG_MAX)
    ZVAL_LONG(z, (zend_long)id);
  else
    ZVAL_NEW_STR(z, zend_strpprintf(0, "%llu", (unsigned long long)id));
}

static void sfc_swig_php_ids(zval *z, const sfc_swig_batch *b) {
  size_t i;
  array_init_size(z, (uint32_t)b->filled);
  for (i = 0; i < b->filled; i++) {
    zval v;
    sfc_swig_php_id(&v, b->ids[i]);
    add_next_index_zval(z, &v);
  }
}

static void sfc_swig_raise(const sfc_swig_error *e) {
  sfc_status st = e->error.status;
  zend_class_entry *ce =
      st > SFC_OK && st < SFC_WAIT ? sfc_swig_ce[st] : sfc_swig_ce[0];
  zend_object *exc = zend_throw_exception(ce, e->error.message, (zend_long)st);
  const char *name = sfc_status_name(st);
  zval ids;
  if (e->batch) {
    sfc_swig_php_ids(&ids, e->batch);
    free(e->batch->ids);
    e->batch->ids = NULL;
  } else {
    array_init(&ids);
  }
  zend_update_property_string(ce, exc, "status", sizeof "status" - 1, name);
  zend_update_property(ce, exc, "ids", sizeof "ids" - 1, &ids);
  zval_ptr_dtor(&ids);
}

/* PHP runs one request per thread: nobody else needs the CPU back. */
static int sfc_swig_wait(int64_t wait_us, sfc_error *err) {
  (void)err;
  sfc_pause(wait_us);
  return 0;
}

/* Appends an out-parameter to the return value: the value itself for the
 * first, an array from the second on. (SWIG's t_output_helper copies the
 * first and leaks a reference when it is a string.) */
static void sfc_swig_php_append(zval *target, zval *o) {
  zval first;
  if (Z_TYPE_P(target) == IS_NULL) {
    ZVAL_COPY_VALUE(target, o);
    return;
  }
  if (Z_TYPE_P(target) != IS_ARRAY) {
    ZVAL_COPY_VALUE(&first, target);
    array_init(target);
    add_next_index_zval(target, &first);
  }
  add_next_index_zval(target, o);
}

/* SWIG_ConvertPtr, refusing a wrapper that holds no type (`new
 * SWIG\_p_int`), which SWIG's runtime would dereference. */
static int sfc_swig_php_ptr(zval *z, void **ptr, swig_type_info *ty) {
  ZVAL_DEREF(z);
  *ptr = NULL;
  if (Z_TYPE_P(z) == IS_OBJECT &&
      zend_class_implements_interface(Z_OBJCE_P(z),
                                      &SWIG_Php_swig_wrapped_interface_ce) &&
      !swig_php_fetch_object(Z_OBJ_P(z))->type)
    return -1;
  return SWIG_ConvertPtr(z, ptr, ty, 0);
}

/* A NUL-terminated string zval's text, or NULL. */
static const char *sfc_swig_php_text(zval *z) {
  ZVAL_DEREF(z);
  if (Z_TYPE_P(z) != IS_STRING || strlen(Z_STRVAL_P(z)) != Z_STRLEN_P(z))
    return NULL;
  return Z_STRVAL_P(z);
}

/* Text for the core: a string; NULL with InvalidArgument (naming `what` and
 * the position) when it holds a NUL, which C would take for its end; NULL
 * and *bad = 0 when it is not a string. */
static const char *sfc_swig_php_cstr(zval *z, const char *what, int *bad) {
  sfc_swig_error e;
  *bad = 0;
  ZVAL_DEREF(z);
  if (Z_TYPE_P(z) != IS_STRING) return NULL;
  memset(&e, 0, sizeof e);
  if (sfc_text_check(what, Z_STRVAL_P(z), Z_STRLEN_P(z), &e.error) !=
      SFC_OK) {
    *bad = 1;
    sfc_swig_raise(&e);
    return NULL;
  }
  return Z_STRVAL_P(z);
}

/* Other 64-bit integers (clock readings, times): an int or decimal text;
 * never PHP's silent 0 for anything else. */
static int sfc_swig_php_int64(zval *z, int64_t *out, int argnum,
                              const char *function) {
  ZVAL_DEREF(z);
  if (Z_TYPE_P(z) == IS_LONG) {
    *out = (int64_t)Z_LVAL_P(z);
    return 1;
  }
  if (Z_TYPE_P(z) == IS_STRING && Z_STRLEN_P(z) > 0) {
    const char *s = Z_STRVAL_P(z);
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if ((isdigit((unsigned char)s[0]) || s[0] == '-') && errno == 0 &&
        end == s + Z_STRLEN_P(z)) {
      *out = (int64_t)v;
      return 1;
    }
  }
  sfc_swig_raise_invalid("argument %d of %s must be a 64-bit integer, not %s",
                         argnum, function, zend_zval_type_name(z));
  return 0;
}

/* IDs: a non-negative int, or a decimal string read by sfc_id_parse. */
static int sfc_swig_php_uint64(zval *z, uint64_t *out) {
  sfc_swig_error e;
  char digits[32];
  const char *text;
  ZVAL_DEREF(z);
  if (Z_TYPE_P(z) == IS_LONG && Z_LVAL_P(z) >= 0) {
    *out = (uint64_t)Z_LVAL_P(z);
    return 1;
  }
  size_t len;
  if (Z_TYPE_P(z) == IS_LONG) {
    snprintf(digits, sizeof digits, ZEND_LONG_FMT, Z_LVAL_P(z));
    text = digits;
    len = strlen(digits);
  } else if (Z_TYPE_P(z) == IS_STRING) {
    /* Its real length: a NUL inside is refused, never the end. */
    text = Z_STRVAL_P(z);
    len = Z_STRLEN_P(z);
  } else {
    sfc_swig_raise_invalid("an ID must be an int or a decimal string, not %s",
                           zend_zval_type_name(z));
    return 0;
  }
  memset(&e, 0, sizeof e);
  if (sfc_id_parse_n(text, len, out, &e.error) == SFC_OK) return 1;
  sfc_swig_raise(&e);
  return 0;
}

static void sfc_swig_php_value(zval *z, sfc_swig_value *out) {
  memset(out, 0, sizeof *out);
  ZVAL_DEREF(z);
  switch (Z_TYPE_P(z)) {
  case IS_NULL:
    out->kind = SFC_SWIG_NIL;
    break;
  case IS_TRUE:
  case IS_FALSE:
    out->kind = SFC_SWIG_BOOL;
    out->i = Z_TYPE_P(z) == IS_TRUE;
    break;
  case IS_LONG:
    out->kind = SFC_SWIG_INT;
    out->i = (int64_t)Z_LVAL_P(z);
    break;
  case IS_DOUBLE:
    out->kind = SFC_SWIG_FLOAT;
    out->d = Z_DVAL_P(z);
    break;
  case IS_STRING:
    /* Its real length: the shared glue refuses a NUL inside. */
    out->kind = SFC_SWIG_TEXT;
    out->text = Z_STRVAL_P(z);
    out->len = Z_STRLEN_P(z);
    break;
  default:
    out->text = sfc_swig_php_text(z);
    out->kind = out->text ? SFC_SWIG_TEXT : SFC_SWIG_OTHER;
  }
}

/* Field values by name from an array: ['worker' => 1, 'seq' => 7]. */
static int sfc_swig_php_fields(zval *arr, sfc_swig_named *named) {
  sfc_swig_error e;
  zend_string *name;
  zval *val;
  memset(&e, 0, sizeof e);
  ZVAL_DEREF(arr);
  if (Z_TYPE_P(arr) != IS_ARRAY) {
    sfc_swig_raise_invalid("field values must be an array of name => value, "
                           "like ['worker' => 1, 'seq' => 7], not %s",
                           zend_zval_type_name(arr));
    return 0;
  }
  ZEND_HASH_FOREACH_STR_KEY_VAL(Z_ARRVAL_P(arr), name, val) {
    sfc_swig_value value;
    if (!name) {
      sfc_swig_raise_invalid("field values are keyed by field name, like "
                             "['worker' => 1]");
      return 0;
    }
    sfc_swig_php_value(val, &value);
    if (!sfc_swig_set_field(named, ZSTR_VAL(name), &value, &e.error)) {
      sfc_swig_raise(&e);
      return 0;
    }
  }
  ZEND_HASH_FOREACH_END();
  return 1;
}

/* Generator options from an array: ['node' => ['worker' => 3], …]. */
static int sfc_swig_php_options(zval *arr, sfc_swig_options *o) {
  sfc_swig_error e;
  zend_string *key;
  zval *val;
  memset(&e, 0, sizeof e);
  ZVAL_DEREF(arr);
  if (Z_TYPE_P(arr) != IS_ARRAY) {
    sfc_swig_raise_invalid("generator options must be an array, not %s",
                           zend_zval_type_name(arr));
    return 0;
  }
  ZEND_HASH_FOREACH_STR_KEY_VAL(Z_ARRVAL_P(arr), key, val) {
    sfc_swig_value value;
    if (!key) {
      sfc_swig_raise_invalid("generator options are keyed by name, like "
                             "['node' => ['worker' => 3]]");
      return 0;
    }
    if (strcmp(ZSTR_VAL(key), "node") == 0) {
      zend_string *name;
      zval *v;
      ZVAL_DEREF(val);
      if (Z_TYPE_P(val) == IS_NULL) continue;
      if (Z_TYPE_P(val) != IS_ARRAY) {
        sfc_swig_raise_invalid("option 'node' must be an array of field name "
                               "=> value, like ['worker' => 3]");
        return 0;
      }
      ZEND_HASH_FOREACH_STR_KEY_VAL(Z_ARRVAL_P(val), name, v) {
        if (!name) {
          sfc_swig_raise_invalid("option 'node' is keyed by field name, like "
                                 "['worker' => 3]");
          return 0;
        }
        sfc_swig_php_value(v, &value);
        if (!sfc_swig_set_node(o, ZSTR_VAL(name), &value, &e.error)) break;
      }
      ZEND_HASH_FOREACH_END();
    } else {
      sfc_swig_php_value(val, &value);
      sfc_swig_set_option(o, ZSTR_VAL(key), &value, &e.error);
    }
    if (e.error.status != SFC_OK) {
      sfc_swig_raise(&e);
      return 0;
    }
  }
  ZEND_HASH_FOREACH_END();
  return 1;
}

static void sfc_swig_php_stats(zval *z, const sfc_stats *s) {
  zval node, sources, v;
  unsigned i;
  array_init(z);
#define SFC_SWIG_PUT_ID(name, value)                                           \
  (sfc_swig_php_id(&v, value), add_assoc_zval(z, name, &v))
  SFC_SWIG_PUT_ID("ids_issued", s->ids_issued);
  SFC_SWIG_PUT_ID("waits", s->waits);
  SFC_SWIG_PUT_ID("borrowed_ticks", s->borrowed_ticks);
  SFC_SWIG_PUT_ID("rollbacks", s->rollbacks);
  SFC_SWIG_PUT_ID("rollbacks_waited", s->rollbacks_waited);
  SFC_SWIG_PUT_ID("rollbacks_refused", s->rollbacks_refused);
  SFC_SWIG_PUT_ID("clock_bumps", s->clock_bumps);
  add_assoc_long(z, "last_time_ms", (zend_long)s->last_time_ms);
  SFC_SWIG_PUT_ID("clock", s->clock);
  add_assoc_string(z, "rollback", sfc_rollback_name(s->rollback));
  add_assoc_long(z, "max_wait_ms", (zend_long)s->max_wait_ms);
  add_assoc_long(z, "max_drift_ms", (zend_long)s->max_drift_ms);
#undef SFC_SWIG_PUT_ID
  array_init(&node);
  array_init(&sources);
  for (i = 0; i < s->node_count; i++) {
    sfc_swig_php_id(&v, s->node_values[i]);
    add_assoc_zval(&node, s->node_names[i], &v);
    add_assoc_string(&sources, s->node_names[i],
                     sfc_node_source_name(s->node_sources[i]));
  }
  add_assoc_zval(z, "node", &node);
  add_assoc_zval(z, "node_sources", &sources);
  /* "held: <lock file>", "off" or "unavailable: <why>". */
  if (s->guard)
    add_assoc_string(z, "guard", s->guard);
  else
    add_assoc_null(z, "guard");
}
%}

%minit %{
  {
    zend_class_entry ce;
    INIT_NS_CLASS_ENTRY(ce, "SnowflakeC", "SnowflakeError", NULL);
    sfc_swig_ce[0] = zend_register_internal_class_ex(&ce, zend_ce_exception);
    zend_declare_property_string(sfc_swig_ce[0], "status", sizeof "status" - 1,
                                 "", ZEND_ACC_PUBLIC);
    zend_declare_property_null(sfc_swig_ce[0], "ids", sizeof "ids" - 1,
                               ZEND_ACC_PUBLIC);
#define SFC_SWIG_CLASS(status, name)                                           \
  INIT_NS_CLASS_ENTRY(ce, "SnowflakeC", name, NULL);                           \
  sfc_swig_ce[status] = zend_register_internal_class_ex(&ce, sfc_swig_ce[0])
    SFC_SWIG_CLASS(SFC_INVALID_LAYOUT, "InvalidLayout");
    SFC_SWIG_CLASS(SFC_INVALID_ARGUMENT, "InvalidArgument");
    SFC_SWIG_CLASS(SFC_CLOCK_MOVED_BACKWARDS, "ClockMovedBackwards");
    SFC_SWIG_CLASS(SFC_TIME_EXHAUSTED, "TimeExhausted");
    SFC_SWIG_CLASS(SFC_GENERATOR_FORKED, "GeneratorForked");
    SFC_SWIG_CLASS(SFC_WORKER_UNAVAILABLE, "WorkerUnavailable");
    SFC_SWIG_CLASS(SFC_STATE_ERROR, "StateError");
#undef SFC_SWIG_CLASS
  }
%}

%rinit %{
  /* SWIG registers its classes after any %minit code, so they are sealed
   * here: no subclass, no instance made without the constructor, no
   * unserialize — each would hold no pointer. */
  {
    zend_class_entry *sealed[] = {SWIG_Php_ce_SfcLayout, SWIG_Php_ce_SfcField,
                                  SWIG_Php_ce_SfcLayoutInfo, SWIG_Php_ce_SfcParts,
                                  SWIG_Php_ce_SfcGenerator};
    size_t i;
    for (i = 0; i < sizeof sealed / sizeof *sealed; i++) {
      sealed[i]->ce_flags |= ZEND_ACC_FINAL;
#ifdef ZEND_ACC_NOT_SERIALIZABLE
      sealed[i]->ce_flags |= ZEND_ACC_NOT_SERIALIZABLE;
#endif
    }
  }
%}

/* Every other pointer argument: as SWIG's typemap, with sfc_swig_php_ptr. */
%typemap(in, phptype = "?SWIGTYPE") SWIGTYPE *, SWIGTYPE [] {
  if (sfc_swig_php_ptr(&$input, (void **)&$1, $1_descriptor) < 0) {
    zend_type_error("Expected $1_descriptor for argument $argnum of $symname");
    SWIG_fail;
  }
}

/* Statuses become exceptions (%exception); the value itself is dropped. */
%typemap(out) sfc_status "(void)$1;";

%typemap(out) sfc_status sfc_preset_at {
  if ($1 != SFC_OK) {
    sfc_swig_raise_invalid("preset index %zu is out of range: there are %zu "
                           "presets", (size_t)arg1, sfc_preset_count());
    SWIG_fail;
  }
}

/* Functions whose result comes from an argout typemap. */
%typemap(out, phptype = "SfcLayoutInfo") void sfc_layout_describe "";
%typemap(out, phptype = "array") void next_ids, void next_ids_at "";

/* Out-parameters become return values (an array when there are several). */
%typemap(in, numinputs = 0) sfc_layout *out (sfc_layout temp),
    sfc_parts *out (sfc_parts temp),
    sfc_layout_info *out (sfc_layout_info temp) {
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
}
%typemap(argout) sfc_layout *out,
    sfc_parts *out, sfc_layout_info *out {
  zval o;
  $*1_ltype *copy = ($*1_ltype *)malloc(sizeof *copy);
  ZVAL_NULL(&o); /* SWIG_SetPointerZval reuses an object it finds there */
  if (!copy) {
    zend_throw_error(NULL, "out of memory");
    SWIG_fail;
  }
  *copy = *$1;
  SWIG_SetPointerZval(&o, copy, $1_descriptor, 1);
  sfc_swig_php_append($result, &o);
}

%typemap(in, numinputs = 0) uint64_t *id (uint64_t temp = 0),
    uint64_t *min_id (uint64_t temp = 0), uint64_t *max_id (uint64_t temp = 0),
    int64_t *epoch_ms (int64_t temp = 0), int64_t *value (int64_t temp = 0),
    sfc_rollback *out (sfc_rollback temp = SFC_ROLLBACK_DEFAULT),
    sfc_time_source *out (sfc_time_source temp = SFC_TIME_WALL),
    const char **name (const char *temp = ""),
    const char **spec (const char *temp = "") "$1 = ($1_ltype)&temp;";
%typemap(argout) uint64_t *id,
    uint64_t *min_id, uint64_t *max_id {
  zval o;
  sfc_swig_php_id(&o, *$1);
  sfc_swig_php_append($result, &o);
}
%typemap(argout) int64_t *epoch_ms,
    int64_t *value {
  zval o;
  ZVAL_LONG(&o, (zend_long)*$1);
  sfc_swig_php_append($result, &o);
}
%typemap(argout) sfc_rollback *out,
    sfc_time_source *out {
  zval o;
  ZVAL_LONG(&o, (zend_long)*$1);
  sfc_swig_php_append($result, &o);
}
%typemap(argout) const char **name,
    const char **spec {
  zval o;
  ZVAL_STRING(&o, *$1);
  sfc_swig_php_append($result, &o);
}

/* Text the core writes into a buffer replaces the length it returns. */
%typemap(in, numinputs = 0) (char *buf, size_t cap) (char temp[SFC_JSON_MAX]) {
  $1 = temp;
  $2 = sizeof temp;
}
%typemap(argout) (char *buf, size_t cap) "ZVAL_STRING($result, $1);";
%typemap(out, phptype = "string") size_t sfc_layout_spec, size_t sfc_parts_json,
    size_t sfc_format_iso, size_t sfc_format_id "(void)$1;";

/* IDs and field values in: int >= 0 or a decimal string. */
%typemap(in) uint64_t id, uint64_t value {
  if (!sfc_swig_php_uint64(&$input, &$1)) SWIG_fail;
}

%typemap(in, phptype = "int|string") int64_t {
  if (!sfc_swig_php_int64(&$input, &$1, $argnum, "$symname")) SWIG_fail;
}

/* A batch size: an int >= 0. */
%typemap(in) size_t n {
  zval *z = &$input;
  ZVAL_DEREF(z);
  if (Z_TYPE_P(z) != IS_LONG || Z_LVAL_P(z) < 0) {
    sfc_swig_raise_invalid("a batch size must be an int >= 0");
    SWIG_fail;
  }
  $1 = (size_t)Z_LVAL_P(z);
}

/* Other text for the core (a layout spec, a preset or strategy name, an
 * epoch or an ID as text): a string without NUL bytes. */
%typemap(in) const char *spec, const char *name, const char *text {
  int bad;
  $1 = ($1_ltype)sfc_swig_php_cstr(&$input, "$1_name", &bad);
  if (!$1) {
    if (!bad)
      sfc_swig_raise_invalid("%s must be a string, not %s", "$1_name",
                             zend_zval_type_name(&$input));
    SWIG_fail;
  }
}

/* An epoch: Unix ms, or text for sfc_epoch_parse ("2024-01-01"). */
%typemap(in) int64_t epoch_ms {
  zval *z = &$input;
  ZVAL_DEREF(z);
  if (Z_TYPE_P(z) == IS_LONG) {
    $1 = (int64_t)Z_LVAL_P(z);
  } else {
    sfc_swig_error e;
    int bad;
    const char *text = sfc_swig_php_cstr(z, "epoch", &bad);
    memset(&e, 0, sizeof e);
    if (bad) SWIG_fail;
    if (!text) {
      sfc_swig_raise_invalid("an epoch must be Unix milliseconds (int) or an "
                             "ISO-8601 UTC string");
      SWIG_fail;
    }
    if (sfc_epoch_parse(text, &$1, &e.error) != SFC_OK) {
      sfc_swig_raise(&e);
      SWIG_fail;
    }
  }
}

/* A layout: an SfcLayout or a preset name. */
%typemap(in) const sfc_layout *layout (sfc_layout preset, void *argp = 0) {
  zval *z = &$input;
  ZVAL_DEREF(z);
  if (Z_TYPE_P(z) == IS_STRING) {
    sfc_swig_error e;
    int bad;
    const char *text = sfc_swig_php_cstr(z, "preset", &bad);
    memset(&e, 0, sizeof e);
    if (bad) SWIG_fail;
    if (sfc_layout_preset(text ? text : "", &preset, &e.error) != SFC_OK) {
      sfc_swig_raise(&e);
      SWIG_fail;
    }
    $1 = &preset;
  } else {
    if (sfc_swig_php_ptr(z, &argp, $1_descriptor) < 0 || !argp) {
      sfc_swig_raise_invalid("a layout must be an SfcLayout or a preset name, "
                             "not %s",
                             zend_zval_type_name(z));
      SWIG_fail;
    }
    $1 = ($1_ltype)argp;
  }
}

%typemap(in) const sfc_swig_options *opts (sfc_swig_options temp) {
  zval *z = &$input;
  ZVAL_DEREF(z);
  sfc_swig_options_init(&temp);
  $1 = &temp;
  if (Z_TYPE_P(z) != IS_NULL && !sfc_swig_php_options(z, &temp)) SWIG_fail;
}

%typemap(in) (const sfc_node_value *fields, size_t count) (sfc_swig_named temp) {
  memset(&temp, 0, sizeof temp);
  if (!sfc_swig_php_fields(&$input, &temp)) SWIG_fail;
  $1 = temp.value;
  $2 = temp.count;
}

%typemap(out, phptype = "array") sfc_stats "sfc_swig_php_stats($result, &$1);";

%typemap(out, phptype = "array") sfc_swig_next {
  zval id, wait;
  if ($1.issued)
    sfc_swig_php_id(&id, $1.id);
  else
    ZVAL_NULL(&id);
  ZVAL_LONG(&wait, $1.issued ? 0 : (zend_long)$1.wait_us);
  array_init_size($result, 2);
  add_next_index_zval($result, &id);
  add_next_index_zval($result, &wait);
}

%typemap(in, numinputs = 0) sfc_swig_batch *ids (sfc_swig_batch temp),
    sfc_swig_batch *ids_wait (sfc_swig_batch temp) {
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
}
%typemap(argout) sfc_swig_batch *ids "sfc_swig_php_ids($result, $1);";
%typemap(argout) sfc_swig_batch *ids_wait {
  zval ids, wait;
  sfc_swig_php_ids(&ids, $1);
  ZVAL_LONG(&wait, (zend_long)$1->wait_us);
  array_init_size($result, 2);
  add_next_index_zval($result, &ids);
  add_next_index_zval($result, &wait);
}
%typemap(freearg) sfc_swig_batch *ids, sfc_swig_batch *ids_wait
    "free($1->ids);";
