/* snowflake_c_ruby.i — the Ruby primitives of glue.i: exceptions, waiting
 * without the GVL, Ruby values in and out (a VALUE is the kit's sfk_obj).
 * Included by snowflake_c.i. */

%{
#include <ruby/thread.h>
#include <signal.h>

/* [0] SnowflakeC::Error, [status] its subclass for each error status. */
static VALUE sfc_swig_classes[SFC_STATUS_COUNT];

#define SFC_RB(o) ((VALUE)(uintptr_t)(o))
#define SFC_OBJ(v) ((sfk_obj)(uintptr_t)(v))

static void sfc_swig_raise(void *ctx, const sfc_error *err) {
  const sfc_swig_error *e = (const sfc_swig_error *)(const void *)err;
  sfc_status st = e->error.status;
  const sfc_status_info *info = sfc_status_at((size_t)st);
  VALUE ids = rb_ary_new(), exc;
  sfk_obj made;
  (void)ctx;
  if (e->batch) {
    sfk_ids_out(&sfc_swig_host, e->batch->ids, e->batch->filled, &made);
    ids = SFC_RB(made);
    free(e->batch->ids);
    e->batch->ids = NULL;
  }
  if (st == SFC_WAIT && e->pending) rb_jump_tag((int)e->pending);
  exc = rb_exc_new_str(sfc_swig_classes[info && info->is_error ? st : 0],
                       rb_utf8_str_new_cstr(e->error.message));
  rb_iv_set(exc, "@status", rb_str_new_cstr(sfc_status_name(st)));
  rb_iv_set(exc, "@ids", ids);
  rb_exc_raise(exc);
}

/* A wait without the GVL, in slices of 10 ms. Ruby interrupts it through
 * sfc_swig_unblock, which only raises a flag. Not RUBY_UBF_IO: it signals
 * the thread again and again, and sfc_pause resumes its sleep each time. */
typedef struct sfc_swig_sleep {
  int64_t wait_us;
  volatile sig_atomic_t cancelled;
} sfc_swig_sleep;

#define SFC_SWIG_SLICE_US 10000

/* At least one slice per call, so that the caller's loop always ends. */
static void *sfc_swig_pause(void *arg) {
  sfc_swig_sleep *s = (sfc_swig_sleep *)arg;
  do {
    int64_t step =
        s->wait_us > SFC_SWIG_SLICE_US ? SFC_SWIG_SLICE_US : s->wait_us;
    sfc_pause(step);
    s->wait_us -= step;
  } while (s->wait_us > 0 && !s->cancelled);
  return NULL;
}

static void sfc_swig_unblock(void *arg) {
  ((sfc_swig_sleep *)arg)->cancelled = 1;
}

/* Under rb_protect: the wait, then whatever Ruby has to run (signal
 * handlers, Thread#raise, Thread#kill), which may raise. */
static VALUE sfc_swig_sleep_protected(VALUE arg) {
  sfc_swig_sleep *s = (sfc_swig_sleep *)(uintptr_t)arg;
  s->cancelled = 0;
  rb_nogvl(sfc_swig_pause, s, sfc_swig_unblock, s, RB_NOGVL_UBF_ASYNC_SAFE);
  rb_thread_check_ints();
  return Qnil;
}

/* An exception raised meanwhile resumes in sfc_swig_raise, once the
 * wrapper's buffers are freed: nothing jumps over this C code. */
static int sfc_swig_wait(void *ctx, int64_t wait_us, sfc_error *err) {
  sfc_swig_sleep s;
  (void)ctx;
  s.wait_us = wait_us;
  do {
    int state = 0;
    rb_protect(sfc_swig_sleep_protected, (VALUE)(uintptr_t)&s, &state);
    if (state) { /* resumed by rb_jump_tag in sfc_swig_raise */
      sfc_swig_interrupted(err, (uintptr_t)state);
      return -1;
    }
  } while (s.wait_us > 0); /* woken for nothing that raised: wait on */
  return 0;
}

/* Kernel#warn(text, uplevel: 0): the warning names the caller's line. */
static VALUE sfc_swig_warn_protected(VALUE text) {
  VALUE args[2];
  args[0] = text;
  args[1] = rb_hash_new();
  rb_hash_aset(args[1], ID2SYM(rb_intern("uplevel")), INT2FIX(0));
  return rb_funcallv_kw(rb_mKernel, rb_intern("warn"), 2, args,
                        RB_PASS_KEYWORDS);
}

/* Under rb_protect: a Warning.warn that raises resumes in sfc_swig_raise,
 * once the new generator is freed. */
static int sfc_swig_warn(void *ctx, const char *kind, const char *text,
                         sfc_error *err) {
  int state = 0;
  (void)ctx, (void)kind;
  rb_protect(sfc_swig_warn_protected, rb_utf8_str_new_cstr(text), &state);
  if (!state) return 0;
  sfc_swig_interrupted(err, (uintptr_t)state);
  return -1;
}

static int sfc_swig_in(void *ctx, sfk_obj o, sfc_value *out, sfc_error *err) {
  VALUE v = SFC_RB(o);
  int64_t i = 0;
  uint64_t u = 0;
  const int order = INTEGER_PACK_MSWORD_FIRST | INTEGER_PACK_NATIVE_BYTE_ORDER;
  memset(out, 0, sizeof *out);
  out->type = SFK_TYPE_OBJECT;
  if (NIL_P(v)) {
    out->type = SFC_TYPE_NONE;
  } else if (v == Qtrue || v == Qfalse) {
    out->type = SFC_TYPE_BOOL, out->i = v == Qtrue;
  } else if (RB_INTEGER_TYPE_P(v)) {
    /* 2^63 .. 2^64 - 1 pack without overflow, as negative int64_t. */
    int r = rb_integer_pack(v, &i, 1, sizeof i, 0, order | INTEGER_PACK_2COMP);
    if (r >= -1 && r <= 1 && (r < 0) == (i < 0))
      out->type = SFC_TYPE_INT, out->i = i;
    else if (r > 0 && rb_integer_pack(v, &u, 1, sizeof u, 0, order) == 1)
      out->type = SFC_TYPE_UINT, out->u = u;
    else
      out->type = SFC_TYPE_DOUBLE, out->d = NUM2DBL(v);
  } else if (RB_FLOAT_TYPE_P(v)) {
    out->type = SFC_TYPE_DOUBLE, out->d = RFLOAT_VALUE(v);
  } else if (SYMBOL_P(v) || RB_TYPE_P(v, T_STRING)) {
    /* Its real length: the core refuses a NUL inside, with its position. */
    VALUE str = SYMBOL_P(v) ? rb_sym2str(v) : v;
    out->type = SFC_TYPE_TEXT;
    out->len = (size_t)RSTRING_LEN(str);
    out->text = memchr(RSTRING_PTR(str), 0, out->len) ? RSTRING_PTR(str)
                                                       : StringValueCStr(str);
  } else if (RB_TYPE_P(v, T_HASH)) {
    out->type = SFC_TYPE_MAP;
  } else if (RB_TYPE_P(v, T_ARRAY)) {
    out->type = SFC_TYPE_LIST;
  }
  (void)ctx, (void)err;
  return 0;
}

static const char *sfc_swig_type_of(void *ctx, sfk_obj o) {
  (void)ctx;
  return rb_obj_classname(SFC_RB(o));
}

typedef struct sfc_swig_rb_walk {
  const char *what;
  sfk_visit visit;
  void *ctx;
  sfc_error *err;
} sfc_swig_rb_walk;

static int sfc_swig_rb_pair(VALUE key, VALUE value, VALUE arg) {
  sfc_swig_rb_walk *w = (sfc_swig_rb_walk *)(uintptr_t)arg;
  sfc_value k;
  sfc_swig_in(NULL, SFC_OBJ(key), &k, w->err);
  if (k.type != SFC_TYPE_TEXT)
    sfk_fail(w->err, SFC_INVALID_ARGUMENT,
             "%s are keyed by name (a Symbol or String), not by a %s", w->what,
             rb_obj_classname(key));
  else
    w->visit(w->ctx, k.text, k.len, SFC_OBJ(value), w->err);
  return w->err->status == SFC_OK ? ST_CONTINUE : ST_STOP;
}

static int sfc_swig_each(void *ctx, sfk_obj map, const char *what,
                         sfk_visit visit, void *visit_ctx, sfc_error *err) {
  sfc_swig_rb_walk w = {what, visit, visit_ctx, err};
  (void)ctx;
  if (!RB_TYPE_P(SFC_RB(map), T_HASH)) {
    sfk_fail(err, SFC_INVALID_ARGUMENT,
             "%s must be a Hash by name, like {worker: 3}, not a %s", what,
             rb_obj_classname(SFC_RB(map)));
    return 0;
  }
  rb_hash_foreach(SFC_RB(map), sfc_swig_rb_pair, (VALUE)(uintptr_t)&w);
  return err->status == SFC_OK;
}

static void *sfc_swig_ptr(VALUE *o, swig_type_info *ty) {
  void *p = NULL;
  return SWIG_IsOK(SWIG_ConvertPtr(*o, &p, ty, 0)) ? p : NULL;
}

static const sfc_layout *sfc_swig_layout(void *ctx, sfk_obj o) {
  VALUE v = SFC_RB(o);
  (void)ctx;
  return (const sfc_layout *)sfc_swig_ptr(&v, SWIGTYPE_p_sfc_layout);
}

static int sfc_swig_out(void *ctx, const sfc_value *v, sfk_obj *out) {
  VALUE r;
  (void)ctx;
  switch (v->type) {
  case SFC_TYPE_BOOL: r = v->i ? Qtrue : Qfalse; break;
  case SFC_TYPE_INT: r = LL2NUM(v->i); break;
  case SFC_TYPE_UINT: r = ULL2NUM(v->u); break;
  case SFC_TYPE_DOUBLE: r = DBL2NUM(v->d); break;
  case SFC_TYPE_TEXT: r = rb_utf8_str_new(v->text, (long)v->len); break;
  default: r = Qnil;
  }
  *out = SFC_OBJ(r);
  return 0;
}

static sfk_obj sfc_swig_new_ptr(void *p, swig_type_info *ty) {
  return SFC_OBJ(SWIG_NewPointerObj(p, ty, SWIG_POINTER_OWN));
}

static int sfc_swig_list(void *ctx, sfk_obj *out) {
  (void)ctx;
  *out = SFC_OBJ(rb_ary_new());
  return 0;
}

static int sfc_swig_push(void *ctx, sfk_obj list, sfk_obj v) {
  (void)ctx;
  rb_ary_push(SFC_RB(list), SFC_RB(v));
  return 0;
}

static int sfc_swig_map(void *ctx, sfk_obj *out) {
  (void)ctx;
  *out = SFC_OBJ(rb_hash_new());
  return 0;
}

/* stats[:node]["worker"]: the library's names are Symbols. */
static int sfc_swig_put(void *ctx, sfk_obj map, const char *key, int symbol,
                        sfk_obj v) {
  VALUE k = symbol ? ID2SYM(rb_intern(key)) : rb_utf8_str_new_cstr(key);
  (void)ctx;
  rb_hash_aset(SFC_RB(map), k, SFC_RB(v));
  return 0;
}

/* The collector takes what is dropped. */
static void sfc_swig_drop(void *ctx, sfk_obj o) { (void)ctx, (void)o; }

static void sfc_swig_set(VALUE *result, sfk_obj v) { *result = SFC_RB(v); }

static void sfc_swig_append(VALUE *result, sfk_obj v) {
  *result = SWIG_Ruby_AppendOutput(*result, SFC_RB(v));
}
%}

%init %{
  {
    VALUE base = rb_define_class_under(mSnowflakeC, "Error", rb_eStandardError);
    const sfc_status_info *s;
    size_t i;
    rb_define_attr(base, "status", 1, 0);
    rb_define_attr(base, "ids", 1, 0);
    sfc_swig_classes[0] = base;
    for (i = 0; i < SFC_STATUS_COUNT && (s = sfc_status_at(i)) != NULL; i++)
      if (s->is_error)
        sfc_swig_classes[i] = rb_define_class_under(mSnowflakeC, s->name, base);
  }
%}
