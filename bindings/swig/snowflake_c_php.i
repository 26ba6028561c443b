/*
 * snowflake_c_php.i — the PHP primitives of glue.i: exceptions, waiting,
 * PHP values in and out. Included by snowflake_c.i. PHP's int is signed
 * 64-bit: an ID above PHP_INT_MAX comes back as a decimal string.
 *
 * The kit's sfk_obj is a zval *: an argument's own, or one the kit made,
 * allocated here (sfc_swig_zval) and freed when it is given over.
 */

%{
#include "zend_exceptions.h"

/* [0] SnowflakeC\SnowflakeError, [status] its subclass for each error. */
static zend_class_entry *sfc_swig_ce[SFC_STATUS_COUNT];

/* A new zval for the kit: freed by whoever it is given to. */
static zval *sfc_swig_zval(sfk_obj *out) {
  return (zval *)(*out = emalloc(sizeof(zval)));
}

/* Moves the value of the kit's zval `v` to `to` and frees `v`. */
static void sfc_swig_move(zval *to, sfk_obj v) {
  ZVAL_COPY_VALUE(to, (zval *)v);
  efree(v);
}

static void sfc_swig_raise(void *ctx, const sfc_error *err) {
  const sfc_swig_error *e = (const sfc_swig_error *)(const void *)err;
  sfc_status st = e->error.status;
  const sfc_status_info *info = sfc_status_at((size_t)st);
  zend_class_entry *ce = sfc_swig_ce[info && info->is_error ? st : 0];
  zend_object *exc;
  zval ids;
  sfk_obj made;
  (void)ctx;
  if (st == SFC_WAIT && e->pending) { /* PHP's own exception is thrown */
    if (e->batch) {
      free(e->batch->ids);
      e->batch->ids = NULL;
    }
    return;
  }
  exc = zend_throw_exception(ce, e->error.message, (zend_long)st);
  if (e->batch) {
    sfk_ids_out(&sfc_swig_host, e->batch->ids, e->batch->filled, &made);
    sfc_swig_move(&ids, made);
    free(e->batch->ids);
    e->batch->ids = NULL;
  } else {
    array_init(&ids);
  }
  zend_update_property_string(ce, exc, "status", sizeof "status" - 1,
                              sfc_status_name(st));
  zend_update_property(ce, exc, "ids", sizeof "ids" - 1, &ids);
  zval_ptr_dtor(&ids);
}

/* PHP runs one request per thread: nobody else needs the CPU back. */
static int sfc_swig_wait(void *ctx, int64_t wait_us, sfc_error *err) {
  (void)ctx, (void)err;
  sfc_pause(wait_us);
  return 0;
}

/* trigger_error(text, E_USER_WARNING); an error handler that throws
 * leaves its exception pending, which the wrapper then passes on. */
static int sfc_swig_warn(void *ctx, const char *kind, const char *text,
                         sfc_error *err) {
  (void)ctx, (void)kind;
  zend_error(E_USER_WARNING, "%s", text);
  if (!EG(exception)) return 0;
  sfc_swig_interrupted(err, 1);
  return -1;
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

static int sfc_swig_in(void *ctx, sfk_obj o, sfc_value *out, sfc_error *err) {
  zval *z = (zval *)o;
  (void)ctx, (void)err;
  memset(out, 0, sizeof *out);
  ZVAL_DEREF(z);
  switch (Z_TYPE_P(z)) {
  case IS_NULL: out->type = SFC_TYPE_NONE; break;
  case IS_TRUE: out->type = SFC_TYPE_BOOL, out->i = 1; break;
  case IS_FALSE: out->type = SFC_TYPE_BOOL; break;
  case IS_LONG: out->type = SFC_TYPE_INT, out->i = Z_LVAL_P(z); break;
  case IS_DOUBLE: out->type = SFC_TYPE_DOUBLE, out->d = Z_DVAL_P(z); break;
  case IS_STRING: /* the real length: the core refuses a NUL inside */
    out->type = SFC_TYPE_TEXT;
    out->text = Z_STRVAL_P(z);
    out->len = Z_STRLEN_P(z);
    break;
  case IS_ARRAY: /* [] is an empty map: no options */
    out->type = zend_hash_num_elements(Z_ARRVAL_P(z)) &&
                        zend_array_is_list(Z_ARRVAL_P(z))
                    ? SFC_TYPE_LIST
                    : SFC_TYPE_MAP;
    break;
  default: out->type = SFK_TYPE_OBJECT;
  }
  return 0;
}

static const char *sfc_swig_type_of(void *ctx, sfk_obj o) {
  (void)ctx;
  return zend_zval_type_name((zval *)o);
}

static int sfc_swig_each(void *ctx, sfk_obj map, const char *what,
                         sfk_visit visit, void *visit_ctx, sfc_error *err) {
  zend_string *key;
  zval *value, *z = (zval *)map;
  (void)ctx;
  ZVAL_DEREF(z);
  if (Z_TYPE_P(z) != IS_ARRAY) {
    sfk_fail(err, SFC_INVALID_ARGUMENT,
             "%s must be an array by name, like ['worker' => 3], not %s",
             what, zend_zval_type_name(z));
    return 0;
  }
  ZEND_HASH_FOREACH_STR_KEY_VAL(Z_ARRVAL_P(z), key, value) {
    if (!key) {
      sfk_fail(err, SFC_INVALID_ARGUMENT,
               "%s are keyed by name, like ['worker' => 3], not by "
               "position",
               what);
      return 0;
    }
    if (!visit(visit_ctx, ZSTR_VAL(key), ZSTR_LEN(key), value, err))
      return 0;
  }
  ZEND_HASH_FOREACH_END();
  return 1;
}

static void *sfc_swig_ptr(zval *z, swig_type_info *ty) {
  void *p = NULL;
  return SWIG_IsOK(sfc_swig_php_ptr(z, &p, ty)) ? p : NULL;
}

static const sfc_layout *sfc_swig_layout(void *ctx, sfk_obj o) {
  (void)ctx;
  return (const sfc_layout *)sfc_swig_ptr((zval *)o, SWIGTYPE_p_sfc_layout);
}

static int sfc_swig_out(void *ctx, const sfc_value *v, sfk_obj *out) {
  zval *z = sfc_swig_zval(out);
  (void)ctx;
  switch (v->type) {
  case SFC_TYPE_BOOL: ZVAL_BOOL(z, v->i != 0); break;
  case SFC_TYPE_INT: ZVAL_LONG(z, (zend_long)v->i); break;
  case SFC_TYPE_UINT:
    if (v->u <= (uint64_t)ZEND_LONG_MAX)
      ZVAL_LONG(z, (zend_long)v->u);
    else
      ZVAL_NEW_STR(z, zend_strpprintf(0, "%llu", (unsigned long long)v->u));
    break;
  case SFC_TYPE_DOUBLE: ZVAL_DOUBLE(z, v->d); break;
  case SFC_TYPE_TEXT: ZVAL_STRINGL(z, v->text, v->len); break;
  default: ZVAL_NULL(z);
  }
  return 0;
}

static sfk_obj sfc_swig_new_ptr(void *p, swig_type_info *ty) {
  sfk_obj o;
  zval *z = sfc_swig_zval(&o);
  ZVAL_NULL(z); /* SWIG_SetPointerZval reuses an object it finds there */
  SWIG_SetPointerZval(z, p, ty, 1);
  return o;
}

static int sfc_swig_list(void *ctx, sfk_obj *out) {
  (void)ctx;
  array_init(sfc_swig_zval(out));
  return 0;
}

static int sfc_swig_map(void *ctx, sfk_obj *out) {
  return sfc_swig_list(ctx, out);
}

static int sfc_swig_push(void *ctx, sfk_obj list, sfk_obj v) {
  (void)ctx;
  add_next_index_zval((zval *)list, (zval *)v);
  efree(v);
  return 0;
}

static int sfc_swig_put(void *ctx, sfk_obj map, const char *key, int symbol,
                        sfk_obj v) {
  (void)ctx, (void)symbol;
  add_assoc_zval((zval *)map, key, (zval *)v);
  efree(v);
  return 0;
}

static void sfc_swig_drop(void *ctx, sfk_obj o) {
  (void)ctx;
  zval_ptr_dtor((zval *)o);
  efree(o);
}

static void sfc_swig_set(zval *result, sfk_obj v) { sfc_swig_move(result, v); }

/* The first out-parameter is the result, from the second on an array (not
 * SWIG's t_output_helper, which leaks a string's reference). */
static void sfc_swig_append(zval *target, sfk_obj v) {
  zval first, o;
  sfc_swig_move(&o, v);
  if (Z_TYPE_P(target) == IS_NULL) {
    ZVAL_COPY_VALUE(target, &o);
    return;
  }
  if (Z_TYPE_P(target) != IS_ARRAY) {
    ZVAL_COPY_VALUE(&first, target);
    array_init(target);
    add_next_index_zval(target, &first);
  }
  add_next_index_zval(target, &o);
}
%}

%minit %{
  {
    zend_class_entry ce;
    const sfc_status_info *s;
    size_t i;
    INIT_NS_CLASS_ENTRY(ce, "SnowflakeC", "SnowflakeError", NULL);
    sfc_swig_ce[0] = zend_register_internal_class_ex(&ce, zend_ce_exception);
    zend_declare_property_string(sfc_swig_ce[0], "status", sizeof "status" - 1,
                                 "", ZEND_ACC_PUBLIC);
    zend_declare_property_null(sfc_swig_ce[0], "ids", sizeof "ids" - 1,
                               ZEND_ACC_PUBLIC);
    for (i = 0; i < SFC_STATUS_COUNT && (s = sfc_status_at(i)) != NULL; i++) {
      char name[64];
      if (!s->is_error) continue;
      snprintf(name, sizeof name, "SnowflakeC\\%s", s->name);
      INIT_CLASS_ENTRY_EX(ce, name, strlen(name), NULL);
      sfc_swig_ce[i] = zend_register_internal_class_ex(&ce, sfc_swig_ce[0]);
    }
  }
%}

%rinit %{
  /* SWIG registers its classes after %minit: sealed here (no subclass, no
   * unserialize: each would hold no pointer). */
  {
    zend_class_entry *sealed[] = {
        SWIG_Php_ce_SfcLayout,     SWIG_Php_ce_SfcField,
        SWIG_Php_ce_SfcLayoutInfo, SWIG_Php_ce_SfcParts,
        SWIG_Php_ce_SfcGenerator,  SWIG_Php_ce_SfcStatusInfo,
        SWIG_Php_ce_SfcOptionInfo, SWIG_Php_ce_SfcFactInfo};
    size_t i;
    for (i = 0; i < sizeof sealed / sizeof *sealed; i++) {
      sealed[i]->ce_flags |= ZEND_ACC_FINAL | ZEND_ACC_NOT_SERIALIZABLE;
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
