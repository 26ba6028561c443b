/*
 * glue.i — the C shared by every language of snowflake_c.i: the error a
 * wrapper sees, the core's warnings (each told once), ID batches, the
 * generator's arguments (options, node values and the preset/layout/epoch
 * trio, all handed to the core's own setters), and the stats and layout
 * description built by walking the core's tables.
 *
 * It reaches the language only through the primitives declared below,
 * which each snowflake_c_<language>.i defines: convert one value in or out,
 * walk a map, make a list or a map, raise, wait, warn.
 */

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

/* A value of the language that is none of sfc_value's scalars, nor a map or
 * a list (an object): the binding names its class, the core never sees it. */
#define SFC_SWIG_OBJECT ((sfc_type)100)

/* ---- Per language (snowflake_c_<language>.i) -------------------------- */

/* Raises the exception for `e` (status, message, and the IDs of a failed
 * batch, whose buffer it frees). */
static void sfc_swig_raise(const sfc_swig_error *e);
/* Waits about `wait_us` letting other threads run: 0, or non-zero after
 * sfc_swig_interrupted when the interpreter has an exception to raise. */
static int sfc_swig_wait(int64_t wait_us, sfc_error *err);
/* Tells the user `text` in the language's idiom (Ruby Kernel#warn, PHP
 * E_USER_WARNING): 0, or non-zero after sfc_swig_interrupted when the
 * language raised instead (a warning made an error). */
static int sfc_swig_warn(const char *text, sfc_error *err);
/* A language value as an sfc_value: NONE, BOOL, INT, UINT (integers up to
 * 2^64 - 1), DOUBLE (and larger integers), TEXT (pointing into the value,
 * NUL-terminated at len), MAP (a map by name), LIST, or SFC_SWIG_OBJECT. */
static void sfc_swig_in(sfc_swig_obj *o, sfc_value *out);
/* The language's name of the value's type ("Integer", "array"). */
static const char *sfc_swig_type_of(sfc_swig_obj *o);
/* Calls `visit` for each pair of the map `o`, in order; InvalidArgument when
 * `o` is not a map or a key is not text. 0 when something failed. */
typedef int (*sfc_swig_visit)(void *ctx, const char *key, size_t len,
                              sfc_swig_obj *value, sfc_error *err);
static int sfc_swig_each(sfc_swig_obj *o, const char *what,
                         sfc_swig_visit visit, void *ctx, sfc_error *err);
/* The SWIG object `o` of type `ty` (NULL when it is not one). */
static void *sfc_swig_ptr(sfc_swig_obj *o, swig_type_info *ty);
/* Out: a scalar, a new SWIG object owning `p`, a list, a map. */
static void sfc_swig_out(sfc_swig_obj *out, const sfc_value *v);
static void sfc_swig_new_ptr(sfc_swig_obj *out, void *p, swig_type_info *ty);
static void sfc_swig_list(sfc_swig_obj *out);
static void sfc_swig_push(sfc_swig_obj *list, sfc_swig_obj *v);
static void sfc_swig_map(sfc_swig_obj *out);
/* `symbol`: a name of the library (a Ruby Symbol), else a field's name. */
static void sfc_swig_put(sfc_swig_obj *map, const char *key, int symbol,
                         sfc_swig_obj *v);
/* Adds an out-parameter to the wrapper's result. */
static void sfc_swig_append(sfc_swig_obj *result, sfc_swig_obj *v);

/* ---- Errors ------------------------------------------------------------ */

static sfc_status sfc_swig_fail(sfc_error *err, sfc_status status,
                                const char *fmt, ...) {
  va_list ap;
  err->status = status;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return status;
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
  sfc_swig_raise(&e);
}

/* Raises `e` when it failed; 1 when it did not. */
static int sfc_swig_ok(sfc_swig_error *e) {
  if (e->error.status == SFC_OK) return 1;
  sfc_swig_raise(e);
  return 0;
}

/* A wait or a warning cut short by the interpreter (Ctrl-C, Thread#raise,
 * a warning made an error): the status is SFC_WAIT and sfc_swig_raise
 * resumes the language's own exception from `pending`. */
static void sfc_swig_interrupted(sfc_error *err, uintptr_t pending) {
  sfc_swig_fail(err, SFC_WAIT, "interrupted by the interpreter");
  ((sfc_swig_error *)(void *)err)->pending = pending;
}

/* A value the core cannot take (an object of the language). */
static int sfc_swig_foreign(const char *what, sfc_swig_obj *o,
                            sfc_error *err) {
  sfc_swig_fail(err, SFC_INVALID_ARGUMENT, "%s cannot be a %s", what,
                sfc_swig_type_of(o));
  return 0;
}

/* ---- Warnings ---------------------------------------------------------- */

/* The texts already told, each once per process (a service that makes a
 * generator per request is told once, not per request). */
typedef struct sfc_swig_told {
  struct sfc_swig_told *next;
  char text[];
} sfc_swig_told;

static sfc_swig_told *sfc_swig_told_list;
static pthread_mutex_t sfc_swig_told_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 when `text` is new (now marked), 0 when it was told before. Out of
 * memory it says 1: told again rather than never. */
static int sfc_swig_told_mark(const char *text) {
  sfc_swig_told *t;
  size_t len = strlen(text);
  pthread_mutex_lock(&sfc_swig_told_lock);
  for (t = sfc_swig_told_list; t; t = t->next)
    if (strcmp(t->text, text) == 0) break;
  if (!t && (t = (sfc_swig_told *)malloc(sizeof *t + len + 1)) != NULL) {
    memcpy(t->text, text, len + 1);
    t->next = sfc_swig_told_list;
    sfc_swig_told_list = t;
    t = NULL;
  }
  pthread_mutex_unlock(&sfc_swig_told_lock);
  return t == NULL;
}

/* Unmarks `text`: a warning the language raised was not given. */
static void sfc_swig_told_forget(const char *text) {
  sfc_swig_told **p, *t;
  pthread_mutex_lock(&sfc_swig_told_lock);
  for (p = &sfc_swig_told_list; (t = *p) != NULL; p = &t->next)
    if (strcmp(t->text, text) == 0) {
      *p = t->next;
      free(t);
      break;
    }
  pthread_mutex_unlock(&sfc_swig_told_lock);
}

/* What the core says of a new generator (sfc_generator_warning_at), each
 * text told once: 0, or non-zero when the language raised instead. The
 * decision to warn is the core's; this only hands the texts up. */
static int sfc_swig_tell(const sfc_generator *gen, sfc_error *err) {
  const char *text;
  for (size_t i = 0; sfc_generator_warning_at(gen, i, &text); i++) {
    if (!sfc_swig_told_mark(text)) continue;
    if (sfc_swig_warn(text, err) == 0) continue;
    sfc_swig_told_forget(text);
    return -1;
  }
  return 0;
}

/* ---- Batches ----------------------------------------------------------- */

/* Upper bound of one batch: 2^24 IDs (128 MiB). */
#define SFC_SWIG_BATCH_MAX ((size_t)1 << 24)

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
    sfc_swig_fail(err, SFC_OUT_OF_MEMORY,
                  "out of memory for a batch of %zu IDs", n);
    return 0;
  }
  return 1;
}

static void sfc_swig_ids_out(sfc_swig_obj *out, const sfc_swig_batch *b) {
  size_t i;
  sfc_swig_list(out);
  for (i = 0; i < b->filled; i++) {
    sfc_value v = {SFC_TYPE_UINT, 0, b->ids[i], 0, NULL, 0, 0};
    sfc_swig_obj id;
    sfc_swig_out(&id, &v);
    sfc_swig_push(out, &id);
  }
}

/* [ids, wait_us], or [id or none, wait_us]. */
static void sfc_swig_pair_out(sfc_swig_obj *out, sfc_swig_obj *first,
                              int64_t wait_us) {
  sfc_value w = {SFC_TYPE_INT, wait_us, 0, 0, NULL, 0, 0};
  sfc_swig_obj wait;
  sfc_swig_out(&wait, &w);
  sfc_swig_list(out);
  sfc_swig_push(out, first);
  sfc_swig_push(out, &wait);
}

/* ---- Values by name ---------------------------------------------------- */

/* Node values or field values by name, with every text they point to
 * copied: nothing points into the interpreter's heap, whose collector may
 * move or free it. Freed by sfc_swig_named_free. */
typedef struct sfc_swig_named {
  sfc_node_value *value;
  size_t count, cap;
  char **kept;
  size_t kept_count, kept_cap;
} sfc_swig_named;

static void sfc_swig_named_free(sfc_swig_named *n) {
  size_t i;
  for (i = 0; i < n->kept_count; i++)
    free(n->kept[i]);
  free(n->kept);
  free(n->value);
  memset(n, 0, sizeof *n);
}

/* A copy of `len` bytes of `text`, NUL-terminated, freed with `n`. */
static const char *sfc_swig_keep(sfc_swig_named *n, const char *text,
                                 size_t len, sfc_error *err) {
  char *copy;
  if (n->kept_count == n->kept_cap) {
    size_t cap = n->kept_cap ? 2 * n->kept_cap : 8;
    char **more = (char **)realloc(n->kept, cap * sizeof *more);
    if (!more) goto oom;
    n->kept = more;
    n->kept_cap = cap;
  }
  if (!(copy = (char *)malloc(len + 1))) goto oom;
  memcpy(copy, text, len);
  copy[len] = '\0';
  n->kept[n->kept_count++] = copy;
  return copy;
oom:
  sfc_swig_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
  return NULL;
}

static int sfc_swig_named_add(sfc_swig_named *n, const sfc_node_value *v,
                              sfc_error *err) {
  if (n->count == n->cap) {
    size_t cap = n->cap ? 2 * n->cap : 4;
    sfc_node_value *more =
        (sfc_node_value *)realloc(n->value, cap * sizeof *more);
    if (!more) {
      sfc_swig_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
      return 0;
    }
    n->value = more;
    n->cap = cap;
  }
  n->value[n->count++] = *v;
  return 1;
}

/* A field value for sfc_encode_named: an integer, or decimal text. */
static int sfc_swig_field_visit(void *ctx, const char *key, size_t len,
                                sfc_swig_obj *o, sfc_error *err) {
  sfc_swig_named *n = (sfc_swig_named *)ctx;
  sfc_node_value f = {NULL, 0, SFC_SOURCE_EXPLICIT};
  sfc_value v;
  uint64_t u = 0;
  if (!(f.name = sfc_swig_keep(n, key, len, err))) return 0;
  sfc_swig_in(o, &v);
  if (v.type == SFC_TYPE_INT) {
    f.value = v.i; /* a negative value is named by the core */
    return sfc_swig_named_add(n, &f, err);
  }
  if (v.type == SFC_TYPE_UINT) u = v.u;
  else if (v.type != SFC_TYPE_TEXT) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "the value of field '%s' must be an integer, not a %s",
                  f.name, sfc_swig_type_of(o));
    return 0;
  } else if (sfc_id_parse(v.text, v.len, SFC_ENCODING_DEC, &u, err) != SFC_OK)
    return 0;
  if (u > (uint64_t)INT64_MAX) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT,
                  "the value of field '%s' is above 2^63 - 1; use Parts and "
                  "encode for 64-bit fields",
                  f.name);
    return 0;
  }
  f.value = (int64_t)u;
  return sfc_swig_named_add(n, &f, err);
}

/* ---- The generator's arguments ----------------------------------------- */

/* What a generator is made from: the trio (text, or NULL when not given),
 * the options, the node values. */
typedef struct sfc_swig_setup {
  sfc_options opts;
  sfc_swig_named node; /* also keeps every text below */
  const char *preset, *spec, *epoch;
  sfc_layout held; /* a Layout object, when has_held */
  int has_held;
} sfc_swig_setup;

/* One of the trio, as text for sfc_layout_resolve (a number in decimal). */
static int sfc_swig_trio(sfc_swig_setup *s, const char **slot,
                         const char *key, sfc_swig_obj *o, sfc_error *err) {
  sfc_value v;
  char digits[32];
  const char *text = digits;
  size_t len;
  sfc_swig_in(o, &v);
  if (v.type == SFC_TYPE_NONE) return 1;
  if (*slot) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT, "%s is given twice", key);
    return 0;
  }
  if (v.type == SFC_TYPE_TEXT) {
    if (sfc_text_check(key, v.text, v.len, err) != SFC_OK) return 0;
    text = v.text;
    len = v.len;
  } else if (v.type == SFC_TYPE_INT) {
    len = (size_t)snprintf(digits, sizeof digits, "%lld", (long long)v.i);
  } else if (v.type == SFC_TYPE_UINT) {
    len = (size_t)snprintf(digits, sizeof digits, "%llu",
                           (unsigned long long)v.u);
  } else {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT, "%s must be text, not a %s", key,
                  sfc_swig_type_of(o));
    return 0;
  }
  return (*slot = sfc_swig_keep(&s->node, text, len, err)) != NULL;
}

/* A Layout object, which sfc_layout_resolve takes beside the trio (and
 * refuses with any of it). */
static int sfc_swig_layout_object(sfc_swig_setup *s, const sfc_layout *l,
                                  sfc_error *err) {
  if (s->has_held) {
    sfc_swig_fail(err, SFC_INVALID_ARGUMENT, "layout is given twice");
    return 0;
  }
  s->held = *l;
  s->has_held = 1;
  return 1;
}

/* One node value: for the field `key`, or (key NULL) the only one. */
static int sfc_swig_node_visit(void *ctx, const char *key, size_t len,
                               sfc_swig_obj *o, sfc_error *err) {
  sfc_swig_setup *s = (sfc_swig_setup *)ctx;
  sfc_node_value nv;
  sfc_value v;
  const char *name = NULL;
  if (key && !(name = sfc_swig_keep(&s->node, key, len, err))) return 0;
  sfc_swig_in(o, &v);
  if (v.type == SFC_SWIG_OBJECT)
    return sfc_swig_foreign(name ? name : "a node value", o, err);
  if (sfc_node_value_set(&nv, name, &v, err) != SFC_OK) return 0;
  if (!sfc_swig_named_add(&s->node, &nv, err)) return 0;
  sfc_options_set_nodes(&s->opts, s->node.value, s->node.count);
  return 1;
}

static int sfc_swig_is(const char *key, size_t len, const char *word) {
  return len == strlen(word) && memcmp(key, word, len) == 0;
}

/* One pair of the options: `node`, one of the trio, or an option of the
 * core's table, set by its name as the user wrote it. */
static int sfc_swig_setup_visit(void *ctx, const char *key, size_t len,
                                sfc_swig_obj *o, sfc_error *err) {
  sfc_swig_setup *s = (sfc_swig_setup *)ctx;
  const sfc_layout *l;
  sfc_value v;
  if (sfc_swig_is(key, len, "preset"))
    return sfc_swig_trio(s, &s->preset, "preset", o, err);
  if (sfc_swig_is(key, len, "epoch"))
    return sfc_swig_trio(s, &s->epoch, "epoch", o, err);
  if (sfc_swig_is(key, len, "layout")) {
    if ((l = (const sfc_layout *)sfc_swig_ptr(o, SWIGTYPE_p_sfc_layout)))
      return sfc_swig_layout_object(s, l, err);
    return sfc_swig_trio(s, &s->spec, "layout", o, err);
  }
  sfc_swig_in(o, &v);
  if (sfc_swig_is(key, len, "node")) {
    if (v.type == SFC_TYPE_NONE) return 1;
    if (v.type == SFC_TYPE_MAP)
      return sfc_swig_each(o, "node", sfc_swig_node_visit, s, err);
    return sfc_swig_node_visit(s, NULL, 0, o, err);
  }
  if (v.type == SFC_SWIG_OBJECT) {
    char what[64];
    snprintf(what, sizeof what, "%.*s", (int)(len > 40 ? 40 : len), key);
    return sfc_swig_foreign(what, o, err);
  }
  /* A path is kept by the core until the generator is made: a copy. */
  if (v.type == SFC_TYPE_TEXT &&
      !(v.text = sfc_swig_keep(&s->node, v.text, v.len, err)))
    return 0;
  return sfc_options_set(&s->opts, key, len, &v, err) == SFC_OK;
}

/* Reads Generator.new's arguments: (options), or (preset name or Layout
 * object, options); either may be none. */
static int sfc_swig_setup_read(sfc_swig_setup *s, sfc_swig_obj *first,
                               sfc_swig_obj *opts, sfc_error *err) {
  sfc_value v = {SFC_TYPE_NONE, 0, 0, 0, NULL, 0, 0};
  const sfc_layout *l;
  if (first) sfc_swig_in(first, &v);
  if (v.type == SFC_TYPE_MAP && !opts) {
    opts = first;
  } else if (v.type == SFC_TYPE_TEXT) {
    if (!sfc_swig_trio(s, &s->preset, "preset", first, err)) return 0;
  } else if (v.type != SFC_TYPE_NONE) {
    if (!(l = (const sfc_layout *)sfc_swig_ptr(first, SWIGTYPE_p_sfc_layout)))
      return sfc_swig_foreign("the first argument (a Layout, a preset name "
                              "or the options)",
                              first, err);
    if (!sfc_swig_layout_object(s, l, err)) return 0;
  }
  if (opts) {
    sfc_swig_in(opts, &v);
    if (v.type != SFC_TYPE_NONE &&
        !sfc_swig_each(opts, "generator options", sfc_swig_setup_visit, s,
                       err))
      return 0;
  }
  return 1;
}

/* ---- Facts: the stats and a layout's description ----------------------- */

static void sfc_swig_stats_out(sfc_swig_obj *out, const sfc_stats *s) {
  const sfc_fact_info *f;
  size_t i, j;
  sfc_swig_map(out);
  for (i = 0; (f = sfc_stats_fact_at(i)) != NULL; i++) {
    sfc_value v, e;
    sfc_swig_obj o, x;
    const char *key;
    sfc_stats_fact(s, i, &v);
    if (v.type == SFC_TYPE_MAP) {
      sfc_swig_map(&o);
      for (j = 0; sfc_stats_entry(s, i, j, &key, &e); j++) {
        sfc_swig_out(&x, &e);
        sfc_swig_put(&o, key, 0, &x);
      }
    } else {
      sfc_swig_out(&o, &v);
    }
    sfc_swig_put(out, f->name, 1, &o);
  }
}

static void sfc_swig_field_out(sfc_swig_obj *out, const sfc_field *field) {
  const sfc_fact_info *f;
  size_t i;
  sfc_swig_map(out);
  for (i = 0; (f = sfc_field_fact_at(i)) != NULL; i++) {
    sfc_value v;
    sfc_swig_obj o;
    sfc_field_fact(field, i, &v);
    sfc_swig_out(&o, &v);
    sfc_swig_put(out, f->name, 1, &o);
  }
}

static void sfc_swig_describe_out(sfc_swig_obj *out, const sfc_layout *l) {
  const sfc_fact_info *f;
  char buf[SFC_SPEC_MAX];
  size_t i, j;
  sfc_swig_map(out);
  for (i = 0; (f = sfc_layout_fact_at(i)) != NULL; i++) {
    sfc_value v;
    sfc_swig_obj o, x;
    sfc_layout_fact(l, i, &v, buf, sizeof buf);
    if (v.type == SFC_TYPE_LIST) {
      sfc_swig_list(&o);
      for (j = 0; j < v.u; j++) {
        sfc_swig_field_out(&x, &l->fields[j]);
        sfc_swig_push(&o, &x);
      }
    } else {
      sfc_swig_out(&o, &v);
    }
    sfc_swig_put(out, f->name, 1, &o);
  }
}
%}
