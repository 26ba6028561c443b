/*
 * snowflake_c_ruby.i — the Ruby side of snowflake_c.i: exceptions, waiting
 * without the GVL, and the conversions SWIG cannot guess. Included by
 * snowflake_c.i; not an interface of its own.
 */

%{
#include <ruby/thread.h>
#include <signal.h>

/* [0] SnowflakeC::Error, [status] its subclass for that status. */
static VALUE sfc_swig_classes[SFC_WAIT];

static VALUE sfc_swig_rb_ids(const sfc_swig_batch *b) {
  VALUE a = rb_ary_new_capa((long)b->filled);
  size_t i;
  for (i = 0; i < b->filled; i++)
    rb_ary_push(a, ULL2NUM(b->ids[i]));
  return a;
}

static void sfc_swig_raise(const sfc_swig_error *e) {
  sfc_status st = e->error.status;
  VALUE ids = e->batch ? sfc_swig_rb_ids(e->batch) : rb_ary_new();
  VALUE cls, exc;
  if (e->batch) {
    free(e->batch->ids);
    e->batch->ids = NULL;
  }
  if (st == SFC_WAIT && e->pending) rb_jump_tag((int)e->pending);
  cls =
      st > SFC_OK && st < SFC_WAIT ? sfc_swig_classes[st] : sfc_swig_classes[0];
  exc = rb_exc_new_str(cls, rb_utf8_str_new_cstr(e->error.message));
  rb_iv_set(exc, "@status", rb_str_new_cstr(sfc_status_name(st)));
  rb_iv_set(exc, "@ids", ids);
  rb_exc_raise(exc);
}

/* A wait without the GVL. Ruby interrupts it (Thread#kill, Thread#raise,
 * a signal) through sfc_swig_unblock, which only raises a flag: the sleep
 * ends within one slice (10 ms). Not RUBY_UBF_IO: that one signals the
 * sleeping thread again and again until it leaves, and sfc_pause, which
 * resumes its sleep after each signal, then never ends. */
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

/* Sleeps without the GVL, letting other threads run. An exception raised
 * meanwhile is caught here and resumes in sfc_swig_raise, once the wrapper's
 * buffers are freed: nothing jumps over this C code. */
static int sfc_swig_wait(int64_t wait_us, sfc_error *err) {
  sfc_swig_sleep s;
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

/* A NUL-terminated view of a String or Symbol, or NULL. */
static const char *sfc_swig_rb_text(VALUE v) {
  if (SYMBOL_P(v)) v = rb_sym2str(v);
  if (!RB_TYPE_P(v, T_STRING) ||
      memchr(RSTRING_PTR(v), 0, (size_t)RSTRING_LEN(v)))
    return NULL;
  return StringValueCStr(v);
}

/* Text for the core: a String or Symbol; NULL with InvalidArgument (naming
 * `what` and the position) when it holds a NUL, which C would take for its
 * end; NULL and *bad = 0 when it is not text at all. */
static const char *sfc_swig_rb_cstr(VALUE v, const char *what, int *bad) {
  sfc_swig_error e;
  *bad = 0;
  if (SYMBOL_P(v)) v = rb_sym2str(v);
  if (!RB_TYPE_P(v, T_STRING)) return NULL;
  memset(&e, 0, sizeof e);
  if (sfc_text_check(what, RSTRING_PTR(v), (size_t)RSTRING_LEN(v),
                     &e.error) != SFC_OK) {
    *bad = 1;
    sfc_swig_raise(&e);
    return NULL;
  }
  return StringValueCStr(v);
}

/* IDs: a non-negative Integer, or a decimal String read by sfc_id_parse_n
 * with its real length (a NUL inside is refused, never the end). */
static int sfc_swig_rb_id(VALUE v, uint64_t *out) {
  sfc_swig_error e;
  const char *text;
  if (FIXNUM_P(v) && FIX2LONG(v) >= 0) {
    *out = (uint64_t)FIX2LONG(v);
    return 1;
  }
  if (RB_INTEGER_TYPE_P(v)) v = rb_funcall(v, rb_intern("to_s"), 0);
  if (!RB_TYPE_P(v, T_STRING)) {
    sfc_swig_raise_invalid("an ID must be an Integer or a decimal String, "
                           "not %s",
                           rb_obj_classname(v));
    return 0;
  }
  text = RSTRING_PTR(v);
  memset(&e, 0, sizeof e);
  if (sfc_id_parse_n(text, (size_t)RSTRING_LEN(v), out, &e.error) == SFC_OK)
    return 1;
  sfc_swig_raise(&e);
  return 0;
}

static void sfc_swig_rb_value(VALUE v, sfc_swig_value *out) {
  memset(out, 0, sizeof *out);
  if (NIL_P(v)) {
    out->kind = SFC_SWIG_NIL;
  } else if (v == Qtrue || v == Qfalse) {
    out->kind = SFC_SWIG_BOOL;
    out->i = v == Qtrue;
  } else if (RB_INTEGER_TYPE_P(v)) {
    int64_t x = 0;
    int r = rb_integer_pack(v, &x, 1, sizeof x, 0,
                            INTEGER_PACK_MSWORD_FIRST |
                                INTEGER_PACK_NATIVE_BYTE_ORDER |
                                INTEGER_PACK_2COMP);
    out->kind = r >= -1 && r <= 1 ? SFC_SWIG_INT : SFC_SWIG_OTHER;
    out->i = x;
  } else if (RB_FLOAT_TYPE_P(v)) {
    out->kind = SFC_SWIG_FLOAT;
    out->d = RFLOAT_VALUE(v);
  } else if (SYMBOL_P(v) || RB_TYPE_P(v, T_STRING)) {
    /* Its real length: the shared glue refuses a NUL inside. */
    VALUE str = SYMBOL_P(v) ? rb_sym2str(v) : v;
    out->kind = SFC_SWIG_TEXT;
    out->text = RSTRING_PTR(str);
    out->len = (size_t)RSTRING_LEN(str);
  } else {
    out->kind = SFC_SWIG_OTHER;
  }
}

static int sfc_swig_rb_key(VALUE key, char *buf, size_t cap) {
  const char *text = sfc_swig_rb_text(key);
  if (!text || strlen(text) >= cap) {
    sfc_swig_raise_invalid("names are Symbols or Strings of at most %zu "
                           "bytes",
                           cap - 1);
    return 0;
  }
  memcpy(buf, text, strlen(text) + 1);
  return 1;
}

/* Field values by name from a Hash: {worker: 1, seq: 7}. */
static int sfc_swig_rb_fields(VALUE hash, sfc_swig_named *named) {
  sfc_swig_error e;
  VALUE keys;
  long i;
  memset(&e, 0, sizeof e);
  if (!RB_TYPE_P(hash, T_HASH)) {
    sfc_swig_raise_invalid("field values must be a Hash of name to value, "
                           "like {worker: 1, seq: 7}, not %s",
                           rb_obj_classname(hash));
    return 0;
  }
  keys = rb_funcall(hash, rb_intern("keys"), 0);
  for (i = 0; i < RARRAY_LEN(keys); i++) {
    char name[64];
    sfc_swig_value value;
    VALUE k = rb_ary_entry(keys, i);
    if (!sfc_swig_rb_key(k, name, sizeof name)) return 0;
    sfc_swig_rb_value(rb_hash_aref(hash, k), &value);
    if (!sfc_swig_set_field(named, name, &value, &e.error)) {
      sfc_swig_raise(&e);
      return 0;
    }
  }
  return 1;
}

/* Generator options from a Hash: {node: {worker: 3}, rollback: "clock"}. */
static int sfc_swig_rb_options(VALUE hash, sfc_swig_options *o) {
  sfc_swig_error e;
  VALUE keys;
  long i, j;
  memset(&e, 0, sizeof e);
  if (!RB_TYPE_P(hash, T_HASH)) {
    sfc_swig_raise_invalid("generator options must be a Hash, not %s",
                           rb_obj_classname(hash));
    return 0;
  }
  keys = rb_funcall(hash, rb_intern("keys"), 0);
  for (i = 0; i < RARRAY_LEN(keys); i++) {
    char key[64];
    VALUE k = rb_ary_entry(keys, i), v = rb_hash_aref(hash, k);
    sfc_swig_value value;
    if (!sfc_swig_rb_key(k, key, sizeof key)) return 0;
    if (strcmp(key, "node") == 0) {
      VALUE names;
      if (NIL_P(v)) continue;
      if (!RB_TYPE_P(v, T_HASH)) {
        sfc_swig_raise_invalid("option 'node' must be a Hash of field name "
                               "to value, like {worker: 3}");
        return 0;
      }
      names = rb_funcall(v, rb_intern("keys"), 0);
      for (j = 0; j < RARRAY_LEN(names); j++) {
        char name[64];
        VALUE n = rb_ary_entry(names, j);
        if (!sfc_swig_rb_key(n, name, sizeof name)) return 0;
        sfc_swig_rb_value(rb_hash_aref(v, n), &value);
        if (!sfc_swig_set_node(o, name, &value, &e.error)) break;
      }
    } else {
      sfc_swig_rb_value(v, &value);
      sfc_swig_set_option(o, key, &value, &e.error);
    }
    if (e.error.status != SFC_OK) {
      sfc_swig_raise(&e);
      return 0;
    }
  }
  return 1;
}

static VALUE sfc_swig_rb_stats(const sfc_stats *s) {
  VALUE h = rb_hash_new(), node = rb_hash_new(), sources = rb_hash_new();
  unsigned i;
#define SFC_SWIG_PUT(name, value)                                              \
  rb_hash_aset(h, ID2SYM(rb_intern(name)), value)
  SFC_SWIG_PUT("ids_issued", ULL2NUM(s->ids_issued));
  SFC_SWIG_PUT("waits", ULL2NUM(s->waits));
  SFC_SWIG_PUT("borrowed_ticks", ULL2NUM(s->borrowed_ticks));
  SFC_SWIG_PUT("rollbacks", ULL2NUM(s->rollbacks));
  SFC_SWIG_PUT("rollbacks_waited", ULL2NUM(s->rollbacks_waited));
  SFC_SWIG_PUT("rollbacks_refused", ULL2NUM(s->rollbacks_refused));
  SFC_SWIG_PUT("clock_bumps", ULL2NUM(s->clock_bumps));
  SFC_SWIG_PUT("last_time_ms", LL2NUM(s->last_time_ms));
  SFC_SWIG_PUT("clock", ULL2NUM(s->clock));
  SFC_SWIG_PUT("rollback", rb_str_new_cstr(sfc_rollback_name(s->rollback)));
  SFC_SWIG_PUT("max_wait_ms", LL2NUM(s->max_wait_ms));
  SFC_SWIG_PUT("max_drift_ms", LL2NUM(s->max_drift_ms));
  for (i = 0; i < s->node_count; i++) {
    VALUE name = rb_str_new_cstr(s->node_names[i]);
    rb_hash_aset(node, name, ULL2NUM(s->node_values[i]));
    rb_hash_aset(sources, name,
                 rb_str_new_cstr(sfc_node_source_name(s->node_sources[i])));
  }
  SFC_SWIG_PUT("node", node);
  SFC_SWIG_PUT("node_sources", sources);
  /* "held: <lock file>", "off" or "unavailable: <why>": paths, UTF-8. */
  SFC_SWIG_PUT("guard", s->guard ? rb_utf8_str_new_cstr(s->guard) : Qnil);
#undef SFC_SWIG_PUT
  return h;
}
%}

%init %{
  {
    VALUE base = rb_define_class_under(mSnowflakeC, "Error", rb_eStandardError);
    int s;
    rb_define_attr(base, "status", 1, 0);
    rb_define_attr(base, "ids", 1, 0);
    sfc_swig_classes[0] = base;
    for (s = SFC_INVALID_LAYOUT; s < SFC_WAIT; s++)
      sfc_swig_classes[s] = rb_define_class_under(
          mSnowflakeC, sfc_status_name((sfc_status)s), base);
  }
%}

/* Statuses become exceptions (%exception); the value itself is dropped. */
%typemap(out) sfc_status "(void)$1;\n$result = Qnil;";

%typemap(out) sfc_status sfc_preset_at {
  if ($1 != SFC_OK) {
    sfc_swig_raise_invalid("preset index %zu is out of range: there are %zu "
                           "presets", (size_t)arg1, sfc_preset_count());
    SWIG_fail;
  }
  $result = Qnil;
}

/* Out-parameters become return values. */
%typemap(in, numinputs = 0) sfc_layout *out (sfc_layout temp),
    sfc_parts *out (sfc_parts temp),
    sfc_layout_info *out (sfc_layout_info temp) {
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
}
%typemap(argout) sfc_layout *out, sfc_parts *out, sfc_layout_info *out {
  $*1_ltype *copy = ($*1_ltype *)malloc(sizeof *copy);
  if (!copy) rb_raise(rb_eNoMemError, "out of memory");
  *copy = *$1;
  $result = SWIG_Ruby_AppendOutput(
      $result, SWIG_NewPointerObj(copy, $1_descriptor, SWIG_POINTER_OWN));
}

%typemap(in, numinputs = 0) uint64_t *id (uint64_t temp = 0),
    uint64_t *min_id (uint64_t temp = 0), uint64_t *max_id (uint64_t temp = 0),
    int64_t *epoch_ms (int64_t temp = 0), int64_t *value (int64_t temp = 0),
    sfc_rollback *out (sfc_rollback temp = SFC_ROLLBACK_DEFAULT),
    sfc_time_source *out (sfc_time_source temp = SFC_TIME_WALL),
    const char **name (const char *temp = ""),
    const char **spec (const char *temp = "") "$1 = ($1_ltype)&temp;";
%typemap(argout) uint64_t *id, uint64_t *min_id, uint64_t *max_id
    "$result = SWIG_Ruby_AppendOutput($result, ULL2NUM(*$1));";
%typemap(argout) int64_t *epoch_ms, int64_t *value
    "$result = SWIG_Ruby_AppendOutput($result, LL2NUM(*$1));";
%typemap(argout) sfc_rollback *out, sfc_time_source *out
    "$result = SWIG_Ruby_AppendOutput($result, INT2NUM((int)*$1));";
%typemap(argout) const char **name, const char **spec
    "$result = SWIG_Ruby_AppendOutput($result, rb_str_new_cstr(*$1));";

/* Text the core writes into a buffer replaces the length it returns. */
%typemap(in, numinputs = 0) (char *buf, size_t cap) (char temp[SFC_JSON_MAX]) {
  $1 = temp;
  $2 = sizeof temp;
}
%typemap(argout) (char *buf, size_t cap) "$result = rb_str_new_cstr($1);";

/* IDs and field values in: Integer >= 0 or a decimal String. */
%typemap(in) uint64_t id, uint64_t value {
  if (!sfc_swig_rb_id($input, &$1)) SWIG_fail;
}

/* A batch size: a non-negative Integer. */
%typemap(in) size_t n {
  if (!RB_INTEGER_TYPE_P($input) ||
      RTEST(rb_funcall($input, rb_intern("negative?"), 0))) {
    sfc_swig_raise_invalid("a batch size must be an Integer >= 0");
    SWIG_fail;
  }
  $1 = NUM2SIZET($input);
}

/* Other text for the core (a layout spec, a preset or strategy name, an
 * epoch or an ID as text): a String or Symbol without NUL bytes. */
%typemap(in) const char *spec, const char *name, const char *text {
  int bad;
  $1 = ($1_ltype)sfc_swig_rb_cstr($input, "$1_name", &bad);
  if (!$1) {
    if (!bad)
      rb_raise(rb_eTypeError, "%s must be a String, not %s", "$1_name",
               rb_obj_classname($input));
    SWIG_fail;
  }
}

/* An epoch: Unix ms, or text for sfc_epoch_parse ("2024-01-01"). */
%typemap(in) int64_t epoch_ms {
  if (RB_INTEGER_TYPE_P($input)) {
    $1 = NUM2LL($input);
  } else {
    sfc_swig_error e;
    int bad;
    const char *text = sfc_swig_rb_cstr($input, "epoch", &bad);
    memset(&e, 0, sizeof e);
    if (bad) SWIG_fail;
    if (!text) {
      sfc_swig_raise_invalid("an epoch must be Unix milliseconds (Integer) or "
                             "an ISO-8601 UTC String");
      SWIG_fail;
    }
    if (sfc_epoch_parse(text, &$1, &e.error) != SFC_OK) {
      sfc_swig_raise(&e);
      SWIG_fail;
    }
  }
}

/* A layout: a SnowflakeC::Layout or a preset name. */
%typemap(in) const sfc_layout *layout (sfc_layout preset, void *argp = 0) {
  if (RB_TYPE_P($input, T_STRING) || SYMBOL_P($input)) {
    sfc_swig_error e;
    int bad;
    const char *text = sfc_swig_rb_cstr($input, "preset", &bad);
    memset(&e, 0, sizeof e);
    if (bad) SWIG_fail;
    if (sfc_layout_preset(text ? text : "", &preset, &e.error) != SFC_OK) {
      sfc_swig_raise(&e);
      SWIG_fail;
    }
    $1 = &preset;
  } else {
    if (!SWIG_IsOK(SWIG_ConvertPtr($input, &argp, $1_descriptor, 0)) ||
        !argp) {
      sfc_swig_raise_invalid("a layout must be a SnowflakeC::Layout or a "
                             "preset name, not %s",
                             rb_obj_classname($input));
      SWIG_fail;
    }
    $1 = ($1_ltype)argp;
  }
}

%typemap(in) const sfc_swig_options *opts (sfc_swig_options temp) {
  sfc_swig_options_init(&temp);
  $1 = &temp;
  if (!NIL_P($input) && !sfc_swig_rb_options($input, &temp)) SWIG_fail;
}

%typemap(in) (const sfc_node_value *fields, size_t count) (sfc_swig_named temp) {
  memset(&temp, 0, sizeof temp);
  if (!sfc_swig_rb_fields($input, &temp)) SWIG_fail;
  $1 = temp.value;
  $2 = temp.count;
}

%typemap(out) sfc_stats "$result = sfc_swig_rb_stats(&$1);";

%typemap(out) sfc_swig_next {
  $result = rb_ary_new_from_args(2, $1.issued ? ULL2NUM($1.id) : Qnil,
                                 LL2NUM($1.issued ? 0 : $1.wait_us));
}

%typemap(in, numinputs = 0) sfc_swig_batch *ids (sfc_swig_batch temp),
    sfc_swig_batch *ids_wait (sfc_swig_batch temp) {
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
}
%typemap(argout) sfc_swig_batch *ids "$result = sfc_swig_rb_ids($1);";
%typemap(argout) sfc_swig_batch *ids_wait {
  $result = rb_ary_new_from_args(2, sfc_swig_rb_ids($1), LL2NUM($1->wait_us));
}
%typemap(freearg) sfc_swig_batch *ids, sfc_swig_batch *ids_wait
    "free($1->ids);";
