/*
 * snowflake_c_jni.c — the JNI glue of the Java binding (io.snowflakec).
 *
 * Converts types and maps errors, nothing else: every rule lives in the core,
 * and the policy a binding would otherwise re-code comes from the core's
 * tables (snowflake_c.h, "Binding contract"): the exception class of each
 * status, the layout description and the stats; a generator's arguments
 * (the preset/layout/epoch trio, node values, options by name) and field
 * values are read by the binding kit's walks (snowflake_c_host.h). The natives
 * belong to io.snowflakec.Native and are registered in JNI_OnLoad; the library
 * exports only JNI_OnLoad, JNI_OnUnload and the FFM entry points of Java 22+
 * (snowflake_c_ffm.h; see snowflake_c_jni.map).
 *
 * A layout travels to Java as an opaque byte[] holding the sfc_layout value
 * (layouts are plain values in the core): the natives copy it back, check its
 * size and pass it on. A generator travels as its address in a jlong, 0 once
 * closed (the core answers every call on NULL). Java closes it with
 * sfc_generator_close, which calls in flight may race, and frees it only
 * through its Cleaner, once no call can reach it.
 *
 * Values of the tables go to Java as Long (BigInteger above Long.MAX_VALUE),
 * Double, Boolean, byte[] for text (decoded by Java with the platform's
 * charset, that of the file system's paths) and null; the kit's walks
 * (snowflake_c_host.h: stats, layout description, lease stats, warnings)
 * make lists as ArrayList and maps as LinkedHashMap.
 */
#include <jni.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snowflake_c.h"
#include "snowflake_c_ffm.h"
#include "snowflake_c_host.h"
#include "snowflake_c_next.h"

/* The exception class of each error status, from the core's status table
 * (io.snowflakec.<Name>Exception); SnowflakeException for any other. */
static jclass exception_classes[SFC_STATUS_COUNT];
static jclass base_exception;

static jclass string_class;
static jclass object_class;
static jclass objects_class; /* Object[] */
static jclass bytes_class;
static jclass boolean_class;
static jclass long_class;
static jclass double_class;
static jclass duration_class;
static jclass big_integer_class;
static jclass list_class; /* ArrayList */
static jclass map_class;  /* LinkedHashMap */
static jmethodID boolean_value;
static jmethodID boolean_of;
static jmethodID long_value;
static jmethodID long_of;
static jmethodID double_value;
static jmethodID double_of;
static jmethodID duration_seconds;
static jmethodID duration_nano;
static jmethodID big_integer_new;
static jmethodID list_new;
static jmethodID list_add;
static jmethodID map_new;
static jmethodID map_put;

/* The tables whose names Java reads (Native.TABLE_*). */
enum {
  TABLE_OPTIONS = 0,
  TABLE_STATUSES = 1,
  TABLE_COUNTERS = 2, /* the stats' rows, named only where a counter */
  TABLE_GAUGES = 3,   /* the stats' rows, named only where a gauge */
  TABLE_PRESETS = 4,
  TABLE_ENCODINGS = 5 /* by number, for Java to pass the number */
};

/* ---- errors ------------------------------------------------------------- */

static void throw_status(JNIEnv *env, sfc_status status, const char *message) {
  if ((*env)->ExceptionCheck(env)) {
    return;
  }
  jclass cls = (unsigned)status < SFC_STATUS_COUNT && exception_classes[status]
                   ? exception_classes[status]
                   : base_exception;
  /* The options as Java names them: stateDir, not state_dir. */
  char said[2 * SFC_MESSAGE_MAX];
  if (sfc_text_in_terms(message, SFC_TERMS_CAMEL, said, sizeof said) <
      sizeof said)
    message = said;
  (*env)->ThrowNew(env, cls, message);
}

static void throw_error(JNIEnv *env, const sfc_error *err) {
  throw_status(env, err->status, err->message);
}

static void throw_invalid(JNIEnv *env, const char *message) {
  throw_status(env, SFC_INVALID_ARGUMENT, message);
}

static void throw_out_of_memory(JNIEnv *env) {
  throw_status(env, SFC_OUT_OF_MEMORY, sfc_status_message(SFC_OUT_OF_MEMORY));
}

/* ---- conversions -------------------------------------------------------- */

/* Copies a layout out of its Java byte[]; false (with an exception) when the
 * array is not one. No array (a null Layout: decode, encode and range of IDs
 * made elsewhere) is the core's InvalidArgument for a layout not named: none
 * is assumed. */
static int get_layout(JNIEnv *env, jbyteArray bytes, sfc_layout *out) {
  if (bytes == NULL) {
    sfc_error err;
    sfc_layout_resolve_for_ids(NULL, NULL, NULL, NULL, out, &err);
    throw_error(env, &err);
    return 0;
  }
  if ((*env)->GetArrayLength(env, bytes) != (jsize)sizeof(sfc_layout)) {
    throw_invalid(env, "Not a layout: build one with Layout.parse or "
                       "Layout.preset.");
    return 0;
  }
  (*env)->GetByteArrayRegion(env, bytes, 0, (jsize)sizeof(sfc_layout),
                             (jbyte *)out);
  return !(*env)->ExceptionCheck(env);
}

static jbyteArray new_layout(JNIEnv *env, const sfc_layout *layout) {
  jbyteArray out = (*env)->NewByteArray(env, (jsize)sizeof(sfc_layout));
  if (out != NULL) {
    (*env)->SetByteArrayRegion(env, out, 0, (jsize)sizeof(sfc_layout),
                               (const jbyte *)layout);
  }
  return out;
}

/* A Java string as standard UTF-8 (malloc'd, NUL-terminated, `*len` bytes
 * before the terminator), or NULL with an exception. JNI's modified UTF-8
 * writes U+0000 as C0 80; it becomes the NUL byte it stands for, so that the
 * core sees the text's real length. With `what`, a NUL inside is refused by
 * the core (InvalidArgument with its position). */
static char *get_text(JNIEnv *env, jstring jtext, const char *what,
                      size_t *len) {
  if (jtext == NULL) {
    throw_invalid(env, "A text argument is null.");
    return NULL;
  }
  const char *m = (*env)->GetStringUTFChars(env, jtext, NULL);
  if (m == NULL) {
    return NULL;
  }
  size_t n = strlen(m), k = 0;
  char *s = malloc(n + 1);
  if (s != NULL) {
    for (size_t i = 0; i < n; i++) {
      if ((unsigned char)m[i] == 0xC0 && (unsigned char)m[i + 1] == 0x80) {
        s[k++] = '\0';
        i++;
      } else {
        s[k++] = m[i];
      }
    }
    s[k] = '\0';
  }
  (*env)->ReleaseStringUTFChars(env, jtext, m);
  if (s == NULL) {
    throw_out_of_memory(env);
    return NULL;
  }
  sfc_error err;
  if (what != NULL && sfc_text_check(what, s, k, &err) != SFC_OK) {
    free(s);
    throw_error(env, &err);
    return NULL;
  }
  if (len != NULL) {
    *len = k;
  }
  return s;
}

/* A NUL-terminated copy of a byte[] (malloc'd, `*len` bytes before the
 * terminator), or NULL with an exception. */
static char *get_bytes(JNIEnv *env, jbyteArray bytes, size_t *len) {
  jsize n = (*env)->GetArrayLength(env, bytes);
  char *s = malloc((size_t)n + 1);
  if (s == NULL) {
    throw_out_of_memory(env);
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, bytes, 0, n, (jbyte *)s);
  s[n] = '\0';
  *len = (size_t)n;
  return s;
}

static jstring new_string(JNIEnv *env, const char *s) {
  return (*env)->NewStringUTF(env, s);
}

static jbyteArray new_bytes(JNIEnv *env, const char *s, size_t len) {
  jbyteArray out = (*env)->NewByteArray(env, (jsize)len);
  if (out != NULL) {
    (*env)->SetByteArrayRegion(env, out, 0, (jsize)len, (const jbyte *)s);
  }
  return out;
}

/* A Long, checked at once (-Xcheck:jni wants a check after each call into
 * Java, and the callers make several before they put them). */
static jobject new_long(JNIEnv *env, jlong v) {
  jobject out = (*env)->CallStaticObjectMethod(env, long_class, long_of, v);
  return (*env)->ExceptionCheck(env) ? NULL : out;
}

static jlongArray new_longs(JNIEnv *env, const jlong *v, jsize n) {
  jlongArray out = (*env)->NewLongArray(env, n);
  if (out != NULL) {
    (*env)->SetLongArrayRegion(env, out, 0, n, v);
  }
  return out;
}

/* A value of the core's tables as a Java object (see the top of the file);
 * NULL for none, or with an exception. */
static jobject box(JNIEnv *env, const sfc_value *v) {
  switch (v->type) {
  case SFC_TYPE_BOOL:
    return (*env)->CallStaticObjectMethod(env, boolean_class, boolean_of,
                                          (jboolean)(v->i != 0));
  case SFC_TYPE_INT:
    return new_long(env, (jlong)v->i);
  case SFC_TYPE_UINT:
    if (v->u <= (uint64_t)INT64_MAX) {
      return new_long(env, (jlong)v->u);
    } else {
      char digits[24];
      snprintf(digits, sizeof digits, "%llu", (unsigned long long)v->u);
      jstring s = new_string(env, digits);
      return s == NULL ? NULL
                       : (*env)->NewObject(env, big_integer_class,
                                           big_integer_new, s);
    }
  case SFC_TYPE_DOUBLE:
    return (*env)->CallStaticObjectMethod(env, double_class, double_of,
                                          (jdouble)v->d);
  case SFC_TYPE_TEXT:
    return v->text ? new_bytes(env, v->text, v->len) : NULL;
  default:
    return NULL;
  }
}

/* Sets out[i] to `item` and drops the local reference; false when an
 * exception is pending. */
static int put(JNIEnv *env, jobjectArray out, jsize i, jobject item) {
  if ((*env)->ExceptionCheck(env)) {
    return 0;
  }
  (*env)->SetObjectArrayElement(env, out, i, item);
  if (item != NULL) {
    (*env)->DeleteLocalRef(env, item);
  }
  return 1;
}

/* Item i of an array, made by `at` from `ctx`: NULL for null, or with an
 * exception. */
typedef jobject (*item_at)(JNIEnv *env, const void *ctx, size_t i);

/* The n items `at` makes, as an array of `cls`; NULL with an exception. */
static jobjectArray array_of(JNIEnv *env, jclass cls, size_t n, item_at at,
                             const void *ctx) {
  jobjectArray out = (*env)->NewObjectArray(env, (jsize)n, cls, NULL);
  for (size_t i = 0; out != NULL && i < n; i++) {
    if (!put(env, out, (jsize)i, at(env, ctx, i))) {
      return NULL;
    }
  }
  return out;
}

/* Object[]{items…} of n items made by the caller (null ones stay null);
 * NULL with an exception. */
static jobjectArray tuple(JNIEnv *env, jsize n, ...) {
  va_list items;
  va_start(items, n);
  jobjectArray out = (*env)->NewObjectArray(env, n, object_class, NULL);
  for (jsize i = 0; out != NULL && i < n; i++) {
    if (!put(env, out, i, va_arg(items, jobject))) {
      out = NULL;
    }
  }
  va_end(items);
  return out;
}

/* ---- the kit's host (snowflake_c_host.h) --------------------------------
 * Its walks made into Java values: a list an ArrayList, a map a
 * LinkedHashMap (keys in the core's order), a scalar as box makes it; Java
 * reads them through Facts.value. Its walks in (a generator's arguments)
 * read what Generator.Builder hands over: a map as Object[]{key, value, …}
 * (a null key: the layout's only node field), a Layout as its byte[]. */
typedef struct java_ctx {
  JNIEnv *env;
  sfk_named texts;   /* what `in` read, freed by sfk_named_free */
  sfc_layout layout; /* the last one `layout` read */
  int options_only;  /* the map is Builder.option's alone */
} java_ctx;

/* A copy of `text` (malloc'd, freed here) held by `c`; NULL with an
 * exception or `err`. */
static const char *ctx_keep(java_ctx *c, char *text, size_t len,
                            sfc_error *err) {
  const char *kept = text ? sfk_keep(&c->texts, text, len, err) : NULL;
  free(text);
  return kept;
}

static JNIEnv *env_of(void *ctx) {
  return ((java_ctx *)ctx)->env;
}

static int host_out(void *ctx, const sfc_value *v, sfk_obj *out) {
  JNIEnv *env = env_of(ctx);
  *out = box(env, v);
  return (*env)->ExceptionCheck(env) ? -1 : 0;
}

static int host_list(void *ctx, sfk_obj *out) {
  JNIEnv *env = env_of(ctx);
  return (*out = (*env)->NewObject(env, list_class, list_new)) ? 0 : -1;
}

static int host_map(void *ctx, sfk_obj *out) {
  JNIEnv *env = env_of(ctx);
  return (*out = (*env)->NewObject(env, map_class, map_new)) ? 0 : -1;
}

static void drop(JNIEnv *env, jobject o) {
  if (o != NULL) {
    (*env)->DeleteLocalRef(env, o);
  }
}

static void host_drop(void *ctx, sfk_obj o) {
  drop(env_of(ctx), o);
}

/* After a call into Java: -1 when it threw; the references dropped. */
static int host_called(JNIEnv *env, jobject a, jobject b) {
  int failed = (*env)->ExceptionCheck(env) ? -1 : 0;
  drop(env, a);
  drop(env, b);
  return failed;
}

static int host_push(void *ctx, sfk_obj list, sfk_obj v) {
  JNIEnv *env = env_of(ctx);
  (*env)->CallBooleanMethod(env, list, list_add, v);
  return host_called(env, v, NULL);
}

static int host_put(void *ctx, sfk_obj map, const char *key, int symbol,
                    sfk_obj v) {
  JNIEnv *env = env_of(ctx);
  (void)symbol;
  jstring k = new_string(env, key);
  if (k != NULL) {
    /* The keys of a walk differ: no value is replaced. */
    (*env)->CallObjectMethod(env, map, map_put, k, v);
  }
  return host_called(env, v, k);
}

/* A value Generator.Builder hands over: null (none), Boolean, Long, Double,
 * String, byte[] (a path in the platform's encoding), java.time.Duration
 * or Object[] (a map); the builder turns the other types it takes into
 * these. -1 with an exception. */
static int host_in(void *ctx, sfk_obj o, sfc_value *out, sfc_error *err) {
  java_ctx *c = ctx;
  JNIEnv *env = c->env;
  memset(out, 0, sizeof *out);
  out->type = SFC_TYPE_NONE;
  if (o == NULL) {
    return 0;
  }
  if ((*env)->IsInstanceOf(env, o, boolean_class)) {
    out->type = SFC_TYPE_BOOL;
    out->i = (*env)->CallBooleanMethod(env, o, boolean_value) ? 1 : 0;
  } else if ((*env)->IsInstanceOf(env, o, long_class)) {
    out->type = SFC_TYPE_INT;
    out->i = (int64_t)(*env)->CallLongMethod(env, o, long_value);
  } else if ((*env)->IsInstanceOf(env, o, double_class)) {
    out->type = SFC_TYPE_DOUBLE;
    out->d = (double)(*env)->CallDoubleMethod(env, o, double_value);
  } else if ((*env)->IsInstanceOf(env, o, string_class)) {
    out->type = SFC_TYPE_TEXT;
    char *text = get_text(env, o, NULL, &out->len);
    return (out->text = ctx_keep(c, text, out->len, err)) ? 0 : -1;
  } else if ((*env)->IsInstanceOf(env, o, bytes_class)) {
    out->type = SFC_TYPE_TEXT;
    char *bytes = get_bytes(env, o, &out->len);
    return (out->text = ctx_keep(c, bytes, out->len, err)) ? 0 : -1;
  } else if ((*env)->IsInstanceOf(env, o, duration_class)) {
    out->type = SFC_TYPE_DURATION;
    out->i = (int64_t)(*env)->CallLongMethod(env, o, duration_seconds);
    if (!(*env)->ExceptionCheck(env)) {
      out->nanos = (int64_t)(*env)->CallIntMethod(env, o, duration_nano);
    }
  } else {
    out->type = (*env)->IsInstanceOf(env, o, objects_class) ? SFC_TYPE_MAP
                                                            : SFK_TYPE_OBJECT;
  }
  return (*env)->ExceptionCheck(env) ? -1 : 0;
}

/* The builder hands over only what `in` reads: no message names a type. */
static const char *host_type_name(void *ctx, sfk_obj o) {
  (void)ctx;
  (void)o;
  return "Java object";
}

/* The pairs of an Object[]{key, value, …}. A node field's name is refused
 * with a NUL inside, as the core refuses one in any text; a name of
 * Builder.option that the walk reads as its own (preset, layout, epoch,
 * node) is no option: the core's answer. */
static int host_each(void *ctx, sfk_obj map, const char *what, sfk_visit visit,
                     void *visit_ctx, sfc_error *err) {
  java_ctx *c = ctx;
  JNIEnv *env = c->env;
  jsize n = (*env)->GetArrayLength(env, map);
  const char *named = strcmp(what, "node") == 0 ? "node field" : NULL;
  int ok = 1;
  for (jsize i = 0; ok && i + 1 < n; i += 2) {
    jstring jkey = (*env)->GetObjectArrayElement(env, map, i);
    jobject value = (*env)->GetObjectArrayElement(env, map, i + 1);
    size_t len = 0;
    char *key = jkey == NULL ? NULL : get_text(env, jkey, named, &len);
    if (jkey != NULL && key == NULL) {
      ok = 0;
    } else if (c->options_only && (!key || !sfc_option_find(key, len))) {
      sfc_options none;
      sfc_options_init(&none);
      sfc_value unset = {SFC_TYPE_NONE, 0, 0, 0, NULL, 0, 0};
      ok = sfc_options_set(&none, key, len, &unset, err) == SFC_OK;
    } else {
      ok = visit(visit_ctx, key, len, value, err);
    }
    free(key);
    drop(env, jkey);
    drop(env, value);
  }
  return ok;
}

/* A Layout's bytes (Layout.raw), or NULL for any other value. */
static const sfc_layout *host_layout(void *ctx, sfk_obj o) {
  java_ctx *c = ctx;
  JNIEnv *env = c->env;
  if (o == NULL || !(*env)->IsInstanceOf(env, o, bytes_class) ||
      (*env)->GetArrayLength(env, o) != (jsize)sizeof(sfc_layout)) {
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, o, 0, (jsize)sizeof(sfc_layout),
                             (jbyte *)&c->layout);
  return &c->layout;
}

/* What a native hands to the kit's walks: the primitives they use, no other. */
static sfk_host java_host(java_ctx *c) {
  sfk_host h = {.ctx = c,
                .in = host_in,
                .type_name = host_type_name,
                .each = host_each,
                .layout = host_layout,
                .out = host_out,
                .list = host_list,
                .map = host_map,
                .push = host_push,
                .put = host_put,
                .drop = host_drop};
  return h;
}

/* Java longs are signed: an ID with its top bit set cannot be one. */
static int check_signed(JNIEnv *env, uint64_t id, const char *what,
                        sfc_status status) {
  if (id > (uint64_t)INT64_MAX) {
    char message[SFC_MESSAGE_MAX];
    snprintf(message, sizeof message,
             "The %s %llu does not fit a signed Java long (its top bit is "
             "set); Java IDs are positive longs, so use a layout of at most 63 "
             "bits.",
             what, (unsigned long long)id);
    throw_status(env, status, message);
    return 0;
  }
  return 1;
}

/* ---- version and tables ------------------------------------------------- */

static jstring n_version(JNIEnv *env, jclass cls) {
  (void)cls;
  return new_string(env, sfc_version_string());
}

static jint n_version_number(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)sfc_version_number();
}

static jint n_header_version_number(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)SFC_VERSION_NUMBER;
}

/* Row i's name in a table; false past its end. A status that is no error
 * has no name (NULL), so that a status's row is its number. */
static int table_row(jint table, size_t i, const char **name) {
  switch (table) {
  case TABLE_OPTIONS: {
    const sfc_option_info *o = sfc_option_at(i);
    *name = o ? o->name : NULL;
    return o != NULL;
  }
  case TABLE_STATUSES: {
    const sfc_status_info *s = sfc_status_at(i);
    *name = s && s->is_error ? s->name : NULL;
    return s != NULL;
  }
  case TABLE_COUNTERS:
  case TABLE_GAUGES: {
    const sfc_fact_info *f = sfc_stats_fact_at(i);
    sfc_metric want =
        table == TABLE_COUNTERS ? SFC_METRIC_COUNTER : SFC_METRIC_GAUGE;
    *name = f && f->metric == want ? f->name : NULL;
    return f != NULL;
  }
  case TABLE_PRESETS: {
    const char *spec;
    int64_t epoch_ms;
    return sfc_preset_at(i, name, &spec, &epoch_ms) == SFC_OK;
  }
  case TABLE_ENCODINGS:
    return (*name = sfc_encoding_name((sfc_encoding)i)) != NULL;
  default:
    return 0;
  }
}

static jobject table_name(JNIEnv *env, const void *table, size_t i) {
  const char *name = NULL;
  table_row(*(const jint *)table, i, &name);
  return name ? new_string(env, name) : NULL;
}

static jobjectArray n_table_names(JNIEnv *env, jclass cls, jint table) {
  (void)cls;
  const char *name;
  size_t n = 0;
  while (table_row(table, n, &name)) {
    n++;
  }
  return array_of(env, string_class, n, table_name, &table);
}

/* ---- layouts ------------------------------------------------------------ */

/* A layout by the trio's texts (null: not given), through
 * sfc_layout_resolve. */
static jbyteArray n_layout_resolve(JNIEnv *env, jclass cls, jstring jpreset,
                                   jstring jspec, jstring jepoch) {
  (void)cls;
  static const char *const what[3] = {"preset", "layout spec", "epoch"};
  jstring given[3] = {jpreset, jspec, jepoch};
  char *text[3] = {NULL, NULL, NULL};
  int ok = 1;
  for (int i = 0; ok && i < 3; i++) {
    if (given[i] != NULL) {
      text[i] = get_text(env, given[i], what[i], NULL);
      ok = text[i] != NULL;
    }
  }
  sfc_layout layout;
  sfc_error err;
  if (ok && sfc_layout_resolve(NULL, text[0], text[1], text[2], &layout,
                               &err) != SFC_OK) {
    throw_error(env, &err);
    ok = 0;
  }
  for (int i = 0; i < 3; i++) {
    free(text[i]);
  }
  return ok ? new_layout(env, &layout) : NULL;
}

static jlong n_epoch_parse(JNIEnv *env, jclass cls, jstring jtext) {
  (void)cls;
  char *text = get_text(env, jtext, "epoch", NULL);
  if (text == NULL) {
    return 0;
  }
  int64_t value = 0;
  sfc_error err;
  sfc_status st = sfc_epoch_parse(text, &value, &err);
  free(text);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  return (jlong)value;
}

/* ---- decode, encode, range ---------------------------------------------- */

/* Decodes a Java long under a Java layout; false with the exception
 * thrown. */
static bool decode_arg(JNIEnv *env, jbyteArray jlayout, jlong id,
                       sfc_layout *layout, sfc_parts *parts) {
  sfc_error err;
  if (!get_layout(env, jlayout, layout) ||
      !check_signed(env, (uint64_t)id, "ID", SFC_INVALID_ARGUMENT)) {
    return false;
  }
  if (sfc_decode(layout, (uint64_t)id, parts, &err) != SFC_OK) {
    throw_error(env, &err);
    return false;
  }
  return true;
}

/* [time_us, time_ms, values per field] */
static jlongArray n_decode(JNIEnv *env, jclass cls, jbyteArray jlayout,
                           jlong id) {
  (void)cls;
  sfc_layout layout;
  sfc_parts parts;
  if (!decode_arg(env, jlayout, id, &layout, &parts)) return NULL;
  jlong v[2 + SFC_MAX_FIELDS];
  jsize n = 0;
  v[n++] = (jlong)parts.time_us;
  v[n++] = (jlong)parts.time_ms;
  for (unsigned i = 0; i < layout.field_count; i++) {
    v[n++] = (jlong)parts.values[i];
  }
  return new_longs(env, v, n);
}

/* ---- string forms ------------------------------------------------------- */

/* Row i of the encodings as data, for Java to format and parse by:
 * {byte[] digits, byte[256] values, int[]{radix, width, fixed_by_default}},
 * or null past the last. */
static jobjectArray n_encoding_row(JNIEnv *env, jclass cls, jint i) {
  (void)cls;
  const sfc_encoding_info *row = i < 0 ? NULL : sfc_encoding_at((size_t)i);
  if (row == NULL) {
    return NULL;
  }
  const jint numbers[] = {(jint)row->radix, (jint)row->width,
                          row->fixed_by_default ? 1 : 0};
  jintArray jnumbers = (*env)->NewIntArray(env, 3);
  if (jnumbers != NULL) {
    (*env)->SetIntArrayRegion(env, jnumbers, 0, 3, numbers);
  }
  return tuple(env, 4, new_bytes(env, row->digits, row->radix),
               new_bytes(env, (const char *)row->values, 256), jnumbers, NULL);
}

/* ---- generator ---------------------------------------------------------- */

static sfc_generator *gen_of(jlong handle) {
  return (sfc_generator *)(intptr_t)handle;
}

/* False, with the core's exception, for a closed generator (handle 0). */
static int check_open(JNIEnv *env, jlong handle) {
  sfc_error err;
  if (sfc_generator_check(gen_of(handle), &err) != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  return 1;
}

/* What a generator, or a lease, is made from (Native.MAKE_*). */
typedef enum make_kind { MAKE_GENERATOR, MAKE_LEASE, MAKE_LEASED } make_kind;

/* A lease as Java holds it: the core's lease and the statement in flight
 * (due() or release() handed it out; done() or failed() ends it). Used
 * from one thread at a time, as the core's lease is. */
typedef struct java_lease {
  sfc_lease *lease;
  sfc_lease_query q;
  int has_query;
} java_lease;

static java_lease *lease_of(jlong handle) {
  return (java_lease *)(intptr_t)handle;
}

/* The builder's arguments read by the kit (sfk_setup_read): the trio
 * resolved first, then the node values, then the options (Builder.option's
 * alone), so that errors come in that order. 0 with an exception. */
static int read_setup(java_ctx *c, sfk_setup *s, jobjectArray jtrio,
                      jobjectArray jnode, jobjectArray joptions,
                      sfc_layout *layout) {
  sfk_host h = java_host(c);
  sfk_obj trio = jtrio, node = jnode, options = joptions;
  sfc_error err;
  err.status = SFC_OK;
  if (sfk_setup_read(&h, s, NULL, &trio, &err) &&
      sfc_layout_resolve(s->has_held ? &s->held : NULL, s->preset, s->spec,
                         s->epoch, layout, &err) == SFC_OK &&
      sfk_setup_read(&h, s, NULL, &node, &err)) {
    c->options_only = 1;
    if (sfk_setup_read(&h, s, NULL, &options, &err)) {
      return 1;
    }
  }
  throw_error(c->env, &err); /* none when Java threw */
  return 0;
}

/* Makes, from the builder's values (Native.MAKE_*): MAKE_GENERATOR a
 * generator, MAKE_LEASE a java_lease for the node field given as "lease" (or
 * by its environment variable; 0 when none is: sfc_lease_wanted), MAKE_LEASED
 * the generator on the value `jlease` acquired (sfc_lease_generator_new). */
static jlong n_make(JNIEnv *env, jclass cls, jint kind, jlong jlease,
                    jobjectArray jtrio, jobjectArray jnode,
                    jobjectArray joptions) {
  (void)cls;
  java_ctx c = {.env = env};
  sfk_setup s;
  sfc_layout layout;
  jlong handle = 0;
  sfk_setup_init(&s);
  if (read_setup(&c, &s, jtrio, jnode, joptions, &layout)) {
    sfc_generator *gen = NULL;
    sfc_error err;
    sfc_status st = SFC_OK;
    if (kind == MAKE_GENERATOR) {
      st = sfc_generator_new(&layout, &s.opts, &gen, &err);
      handle = (jlong)(intptr_t)gen;
    } else if (kind == MAKE_LEASED) {
      st =
          sfc_lease_generator_new(lease_of(jlease)->lease, &s.opts, &gen, &err);
      handle = (jlong)(intptr_t)gen;
    } else if (sfc_lease_wanted(&layout, &s.opts)) {
      java_lease *l = calloc(1, sizeof *l);
      if (l == NULL) {
        throw_out_of_memory(env);
      } else if ((st = sfc_lease_new(&layout, &s.opts, &l->lease, &err)) !=
                 SFC_OK) {
        free(l);
      } else {
        handle = (jlong)(intptr_t)l;
      }
    }
    if (st != SFC_OK) {
      throw_error(env, &err);
      handle = 0;
    }
  }
  sfk_setup_free(&s);
  sfk_named_free(&c.texts);
  return handle;
}

static void n_generator_free(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  sfc_generator_free(gen_of(handle));
}

/* Closes without freeing: calls racing it issue before it or get the
 * closed error; the memory stays for them until the Cleaner frees it. */
static void n_generator_close(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  sfc_generator_close(gen_of(handle));
}

static jboolean n_may_block(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return sfc_generator_may_block(gen_of(handle)) ? JNI_TRUE : JNI_FALSE;
}

static jboolean n_generator_closed(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return sfc_generator_closed(gen_of(handle)) ? JNI_TRUE : JNI_FALSE;
}

/* The core's fast-path rule (sfc_generator_fast_rule), or null where the
 * generator has none: Object[]{long[]{epoch_ms, time_shift, time_max,
 * seq_one, seq_mask, keep_mask, contended_pauses, the closed ticks' counter's
 * offset, the mark's offset}, one direct buffer over the core's memory from
 * the state word to the last of the three}. One buffer: Java checks its
 * bounds and alignment once per access, not a buffer's for each word. */
static jobjectArray n_fast_rule(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  sfc_fast_rule r;
  if (!sfc_generator_fast_rule(gen_of(handle), &r)) {
    return NULL;
  }
  const char *word = (const char *)r.word;
  const char *closed = (const char *)r.issued_closed;
  const char *mark = (const char *)r.mark;
  if (closed < word || mark < word) {
    return NULL; /* the calls stay the core's */
  }
  const jlong values[] = {
      (jlong)r.epoch_ms,         (jlong)r.time_shift,    (jlong)r.time_max,
      (jlong)r.seq_one,          (jlong)r.seq_mask,      (jlong)r.keep_mask,
      (jlong)r.contended_pauses, (jlong)(closed - word), (jlong)(mark - word)};
  const char *end = (closed > mark ? closed : mark) + 8;
  return tuple(
      env, 2, new_longs(env, values, (jsize)(sizeof values / sizeof values[0])),
      (*env)->NewDirectByteBuffer(env, r.word, (jlong)(end - word)));
}

/* What the user of a new generator should be told (its node value
 * unguarded, its layout ending): the core decides, Java says each in its
 * idiom. A list of [kind, text] (sfk_warnings_out). */
static jobject n_generator_warnings(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  java_ctx c = {.env = env};
  sfk_host h = java_host(&c);
  sfk_obj out;
  return sfk_warnings_out(&h, gen_of(handle), &out) == 0 ? out : NULL;
}

static jbyteArray n_generator_layout(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  if (!check_open(env, handle)) {
    return NULL;
  }
  return new_layout(env, sfc_generator_layout(gen_of(handle)));
}

static jlong n_now_us(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  if (!check_open(env, handle)) {
    return 0;
  }
  return (jlong)sfc_generator_now_us(gen_of(handle));
}

static void n_pause(JNIEnv *env, jclass cls, jlong wait_us) {
  (void)env;
  (void)cls;
  sfc_pause((int64_t)wait_us);
}

/* A failed next or nextIds: `unfit` an ID above INT64_MAX, or *err. */
static void throw_next(JNIEnv *env, const sfc_error *err, uint64_t unfit) {
  if (unfit != 0) {
    check_signed(env, unfit, "ID issued", SFC_TIME_EXHAUSTED);
  } else {
    throw_error(env, err);
  }
}

/* The next ID (>= 0), or -1 - wait_us when the caller must wait and call
 * again (snowflake_c_next.h, as the FFM entry); errors are thrown. */
static jlong n_next(JNIEnv *env, jclass cls, jlong handle, jlong now_us) {
  (void)cls;
  sfc_error err;
  uint64_t unfit = 0;
  int64_t r = snowflakec_next(gen_of(handle), (int64_t)now_us, &err, &unfit);
  if (r != SNOWFLAKEC_NEXT_FAILED) {
    return (jlong)r;
  }
  throw_next(env, &err, unfit);
  return 0;
}

/* Throws the error the last FFM entry point kept on this thread
 * (snowflake_c_ffm.h). */
static void n_throw_pending(JNIEnv *env, jclass cls) {
  (void)cls;
  const snowflakec_ffm_error *p = snowflakec_ffm_pending();
  throw_next(env, &p->err, p->unfit);
}

/* Where nextIds puts its IDs: the array and the offset of the range. */
typedef struct java_ids {
  JNIEnv *env;
  jlongArray dst;
  jint off;
} java_ids;

static void set_ids(void *ctx, size_t at, const uint64_t *ids, size_t n) {
  const java_ids *to = ctx;
  (*to->env)->SetLongArrayRegion(to->env, to->dst, to->off + (jsize)at,
                                 (jsize)n, (const jlong *)ids);
}

/* Fills dst[off, off + len) and returns how many were filled. out[0] gets
 * that count and out[1] the wait the core asked for (-1 when none), both
 * written before an error is thrown: the IDs already issued stay valid. */
static jint n_next_ids(JNIEnv *env, jclass cls, jlong handle, jlong now_us,
                       jlongArray dst, jint off, jint len, jlongArray out) {
  (void)cls;
  jsize cap = (*env)->GetArrayLength(env, dst);
  if (off < 0 || len < 0 || off > cap || len > cap - off ||
      (*env)->GetArrayLength(env, out) < 2) {
    throw_invalid(env, "The range to fill is outside the array.");
    return 0;
  }
  java_ids to = {env, dst, off};
  snowflakec_filled f;
  snowflakec_next_ids(gen_of(handle), (int64_t)now_us, (size_t)len, set_ids,
                      &to, &f);
  jlong result[2] = {(jlong)f.done, (jlong)f.wait_us};
  (*env)->SetLongArrayRegion(env, out, 0, 2, result);
  if (f.failed) {
    throw_next(env, &f.err, f.unfit);
  }
  return (jint)f.done;
}

/* The stats by name (sfk_stats_out). */
static jobject n_stats(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  if (!check_open(env, handle)) {
    return NULL;
  }
  sfc_stats s;
  sfc_generator_stats(gen_of(handle), &s);
  java_ctx c = {.env = env};
  sfk_host h = java_host(&c);
  sfk_obj out;
  return sfk_stats_out(&h, &s, &out) == 0 ? out : NULL;
}

/* ---- leases ------------------------------------------------------------- */

/* The statement in flight as Object[]{Long step, Long waitUs, String sql,
 * String[] params}: sql and params null for SFC_LEASE_IDLE. */
static jobject query_param(JNIEnv *env, const void *q, size_t i) {
  const char *param = ((const sfc_lease_query *)q)->params[i];
  return param != NULL ? new_string(env, param) : NULL;
}

static jobjectArray query_array(JNIEnv *env, sfc_lease_step step,
                                int64_t wait_us, const sfc_lease_query *q) {
  int idle = step == SFC_LEASE_IDLE;
  return tuple(
      env, 4, new_long(env, (jlong)step), new_long(env, wait_us),
      idle ? NULL : new_string(env, q->sql),
      idle ? NULL
           : array_of(env, string_class, (size_t)q->nparams, query_param, q));
}

/* sfc_lease_due: the statement due now, or how long to wait. */
static jobjectArray n_lease_due(JNIEnv *env, jclass cls, jlong jlease) {
  (void)cls;
  java_lease *l = lease_of(jlease);
  int64_t wait_us = 0;
  sfc_lease_step step = sfc_lease_due(l->lease, &l->q, &wait_us);
  l->has_query = step != SFC_LEASE_IDLE;
  return query_array(env, step, wait_us, &l->q);
}

static int check_query(JNIEnv *env, java_lease *l) {
  if (l->has_query) {
    return 1;
  }
  throw_invalid(env, "The lease has no statement in flight: take one from "
                     "leaseDue or leaseRelease first.");
  return 0;
}

/* sfc_lease_done with the row as text (null: no row; a null column: SQL
 * NULL); throws what the core makes of it (WorkerUnavailable,
 * LeaseExpired). */
static void n_lease_done(JNIEnv *env, jclass cls, jlong jlease,
                         jobjectArray jrow) {
  (void)cls;
  java_lease *l = lease_of(jlease);
  if (!check_query(env, l)) {
    return;
  }
  char *row[SFC_LEASE_PARAMS] = {NULL};
  jsize ncols = jrow == NULL ? 0 : (*env)->GetArrayLength(env, jrow);
  if (ncols > SFC_LEASE_PARAMS) {
    ncols = SFC_LEASE_PARAMS;
  }
  int ok = 1;
  for (jsize i = 0; ok && i < ncols; i++) {
    jstring col = (jstring)(*env)->GetObjectArrayElement(env, jrow, i);
    if (col != NULL) {
      ok = (row[i] = get_text(env, col, NULL, NULL)) != NULL;
      (*env)->DeleteLocalRef(env, col);
    }
  }
  if (ok) {
    l->has_query = 0;
    sfc_error err;
    sfc_status st = sfc_lease_done(
        l->lease, &l->q, jrow == NULL ? NULL : (const char *const *)row,
        (int)ncols, &err);
    if (st != SFC_OK && st != SFC_WAIT) {
      throw_error(env, &err);
    }
  }
  for (jsize i = 0; i < ncols; i++) {
    free(row[i]);
  }
}

/* sfc_lease_failed: the statement could not be run (the driver's
 * message). */
static void n_lease_failed(JNIEnv *env, jclass cls, jlong jlease,
                           jstring jwhy) {
  (void)cls;
  java_lease *l = lease_of(jlease);
  if (!check_query(env, l)) {
    return;
  }
  char *why = get_text(env, jwhy, NULL, NULL);
  if (why == NULL) {
    return;
  }
  l->has_query = 0;
  sfc_lease_failed(l->lease, &l->q, why);
  free(why);
}

/* sfc_lease_acquired: true once a value is held, false while the acquire
 * may go on; past the core's time, WorkerUnavailable saying why. */
static jboolean n_lease_acquired(JNIEnv *env, jclass cls, jlong jlease) {
  (void)cls;
  sfc_error err;
  sfc_status st = sfc_lease_acquired(lease_of(jlease)->lease, &err);
  if (st != SFC_OK && st != SFC_WAIT) {
    throw_error(env, &err);
  }
  return st == SFC_OK ? JNI_TRUE : JNI_FALSE;
}

static jboolean n_lease_valid(JNIEnv *env, jclass cls, jlong jlease) {
  (void)env;
  (void)cls;
  return sfc_lease_valid(lease_of(jlease)->lease) ? JNI_TRUE : JNI_FALSE;
}

/* sfc_lease_release: the statement that gives the value back, as
 * leaseDue's, or null when nothing is held. */
static jobjectArray n_lease_release(JNIEnv *env, jclass cls, jlong jlease) {
  (void)cls;
  java_lease *l = lease_of(jlease);
  l->has_query = sfc_lease_release(l->lease, &l->q);
  return l->has_query ? query_array(env, SFC_LEASE_RELEASE, 0, &l->q) : NULL;
}

/* sfc_lease_stats_get, by name (sfk_lease_stats_out). */
static jobject n_lease_stats(JNIEnv *env, jclass cls, jlong jlease) {
  (void)cls;
  sfc_lease_stats s;
  sfc_lease_stats_get(lease_of(jlease)->lease, &s);
  java_ctx c = {.env = env};
  sfk_host h = java_host(&c);
  sfk_obj out;
  return sfk_lease_stats_out(&h, &s, &out) == 0 ? out : NULL;
}

/* sfc_lease_table_sql: the table's SQL, for a migration. */
/* Frees the lease: its generator freed first. */
static void n_lease_free(JNIEnv *env, jclass cls, jlong jlease) {
  (void)env;
  (void)cls;
  java_lease *l = lease_of(jlease);
  if (l != NULL) {
    sfc_lease_free(l->lease);
    free(l);
  }
}

/* ---- the kit's calls ---------------------------------------------------- */

/* Row `row` of the kit's calls (snowflake_c_host.h) on Java values as
 * host_in reads them: its result as the kit's walks make values (Java reads
 * them through Facts.value); NULL with an exception. */
static jobject n_call(JNIEnv *env, jclass cls, jint row, jobjectArray jargs) {
  (void)cls;
  const sfk_call *call = row < 0 ? NULL : sfk_call_at((size_t)row);
  const jsize n = jargs == NULL ? 0 : (*env)->GetArrayLength(env, jargs);
  if (call == NULL || n < call->required || n > call->count) {
    throw_invalid(env, "No such call of the core, or not its arguments.");
    return NULL;
  }
  java_ctx c = {.env = env};
  sfk_host h = java_host(&c);
  sfk_obj objs[SFK_CALL_ARGS], out = NULL;
  sfc_value values[SFK_CALL_ARGS];
  sfc_error err;
  err.status = SFC_OK;
  int failed = 0;
  jsize k = 0;
  while (!failed && k < n) {
    objs[k] = (*env)->GetObjectArrayElement(env, jargs, k);
    failed = host_in(&c, objs[k], &values[k], &err) != 0;
    k++;
  }
  failed = failed || sfk_call_run(&h, (size_t)row, objs, values, (size_t)n,
                                  &out, &err) != 0;
  while (k-- > 0) {
    drop(env, objs[k]);
  }
  sfk_named_free(&c.texts);
  if (failed && !(*env)->ExceptionCheck(env)) {
    throw_error(env, &err);
  }
  return failed ? NULL : out;
}

/* The number of the call named `name`: Java looks each up once. */
static jint n_call_row(JNIEnv *env, jclass cls, jstring jname) {
  (void)cls;
  char *name = get_text(env, jname, "call", NULL);
  const sfk_call *call = NULL;
  jint row = 0;
  while (name != NULL && (call = sfk_call_at((size_t)row)) != NULL &&
         strcmp(call->name, name) != 0) {
    row++;
  }
  if (name != NULL && call == NULL) {
    throw_invalid(env, "No such call of the core.");
  }
  free(name);
  return row;
}

/* ---- registration ------------------------------------------------------- */

#define LAYOUT "[B"
#define STR "Ljava/lang/String;"
#define OBJS "[Ljava/lang/Object;"
#define OBJ "Ljava/lang/Object;"

/* JNINativeMethod holds functions as void *, which ISO C does not define but
 * every JNI platform does. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
static const JNINativeMethod methods[] = {
    {"version", "()" STR, (void *)n_version},
    {"versionNumber", "()I", (void *)n_version_number},
    {"headerVersionNumber", "()I", (void *)n_header_version_number},
    {"tableNames", "(I)[" STR, (void *)n_table_names},
    {"layoutResolve", "(" STR STR STR ")" LAYOUT, (void *)n_layout_resolve},
    {"epochParse", "(" STR ")J", (void *)n_epoch_parse},
    {"decode", "(" LAYOUT "J)[J", (void *)n_decode},
    {"encodingRow", "(I)" OBJS, (void *)n_encoding_row},
    {"make", "(IJ" OBJS OBJS OBJS ")J", (void *)n_make},
    {"generatorFree", "(J)V", (void *)n_generator_free},
    {"generatorClose", "(J)V", (void *)n_generator_close},
    {"mayBlock", "(J)Z", (void *)n_may_block},
    {"generatorClosed", "(J)Z", (void *)n_generator_closed},
    {"fastRule", "(J)" OBJS, (void *)n_fast_rule},
    {"generatorWarnings", "(J)" OBJ, (void *)n_generator_warnings},
    {"generatorLayout", "(J)" LAYOUT, (void *)n_generator_layout},
    {"nowUs", "(J)J", (void *)n_now_us},
    {"pause", "(J)V", (void *)n_pause},
    {"next", "(JJ)J", (void *)n_next},
    {"nextIds", "(JJ[JII[J)I", (void *)n_next_ids},
    {"throwPending", "()V", (void *)n_throw_pending},
    {"stats", "(J)" OBJ, (void *)n_stats},
    {"leaseDue", "(J)" OBJS, (void *)n_lease_due},
    {"leaseDone", "(J[" STR ")V", (void *)n_lease_done},
    {"leaseFailed", "(J" STR ")V", (void *)n_lease_failed},
    {"leaseAcquired", "(J)Z", (void *)n_lease_acquired},
    {"leaseValid", "(J)Z", (void *)n_lease_valid},
    {"leaseRelease", "(J)" OBJS, (void *)n_lease_release},
    {"leaseStats", "(J)" OBJ, (void *)n_lease_stats},
    {"leaseFree", "(J)V", (void *)n_lease_free},
    {"call", "(I" OBJS ")" OBJ, (void *)n_call},
    {"callRow", "(" STR ")I", (void *)n_call_row},
};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static jclass global_class(JNIEnv *env, const char *name) {
  jclass local = (*env)->FindClass(env, name);
  if (local == NULL) {
    return NULL;
  }
  jclass global = (*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  return global;
}

/* The classes the glue uses, held as global references. */
static const struct {
  jclass *slot;
  const char *name;
} class_refs[] = {
    {&base_exception, "io/snowflakec/SnowflakeException"},
    {&string_class, "java/lang/String"},
    {&object_class, "java/lang/Object"},
    {&objects_class, "[Ljava/lang/Object;"},
    {&bytes_class, "[B"},
    {&boolean_class, "java/lang/Boolean"},
    {&long_class, "java/lang/Long"},
    {&double_class, "java/lang/Double"},
    {&duration_class, "java/time/Duration"},
    {&big_integer_class, "java/math/BigInteger"},
    {&list_class, "java/util/ArrayList"},
    {&map_class, "java/util/LinkedHashMap"},
};

static const struct {
  jmethodID *slot;
  jclass *cls;
  int is_static;
  const char *name;
  const char *sig;
} method_refs[] = {
    {&boolean_value, &boolean_class, 0, "booleanValue", "()Z"},
    {&boolean_of, &boolean_class, 1, "valueOf", "(Z)Ljava/lang/Boolean;"},
    {&long_value, &long_class, 0, "longValue", "()J"},
    {&long_of, &long_class, 1, "valueOf", "(J)Ljava/lang/Long;"},
    {&double_value, &double_class, 0, "doubleValue", "()D"},
    {&double_of, &double_class, 1, "valueOf", "(D)Ljava/lang/Double;"},
    {&duration_seconds, &duration_class, 0, "getSeconds", "()J"},
    {&duration_nano, &duration_class, 0, "getNano", "()I"},
    {&big_integer_new, &big_integer_class, 0, "<init>", "(" STR ")V"},
    {&list_new, &list_class, 0, "<init>", "()V"},
    {&list_add, &list_class, 0, "add", "(" OBJ ")Z"},
    {&map_new, &map_class, 0, "<init>", "()V"},
    {&map_put, &map_class, 0, "put", "(" OBJ OBJ ")" OBJ},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One exception class per error status, by walking the core's table: the
 * status called Name throws io.snowflakec.NameException. False (with
 * NoClassDefFoundError pending) when the jar lacks one. */
static int load_exception_classes(JNIEnv *env) {
  const sfc_status_info *s;
  for (size_t i = 0; (s = sfc_status_at(i)) != NULL; i++) {
    if (!s->is_error) {
      continue;
    }
    if ((unsigned)s->status >= SFC_STATUS_COUNT) {
      return 0;
    }
    char name[SFC_NAME_MAX + 32];
    snprintf(name, sizeof name, "io/snowflakec/%sException", s->name);
    exception_classes[s->status] = global_class(env, name);
    if (exception_classes[s->status] == NULL) {
      return 0;
    }
  }
  return 1;
}

static void drop_globals(JNIEnv *env) {
  for (size_t i = 0; i < COUNT(class_refs); i++) {
    if (*class_refs[i].slot != NULL) {
      (*env)->DeleteGlobalRef(env, *class_refs[i].slot);
      *class_refs[i].slot = NULL;
    }
  }
  for (size_t i = 0; i < SFC_STATUS_COUNT; i++) {
    if (exception_classes[i] != NULL) {
      (*env)->DeleteGlobalRef(env, exception_classes[i]);
      exception_classes[i] = NULL;
    }
  }
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void)reserved;
  JNIEnv *env;
  if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) {
    return JNI_ERR;
  }
  jclass native_class = (*env)->FindClass(env, "io/snowflakec/Native");
  if (native_class == NULL) {
    return JNI_ERR;
  }
  jint registered =
      (*env)->RegisterNatives(env, native_class, methods, (jint)COUNT(methods));
  (*env)->DeleteLocalRef(env, native_class);
  if (registered != JNI_OK) {
    return JNI_ERR;
  }
  for (size_t i = 0; i < COUNT(class_refs); i++) {
    *class_refs[i].slot = global_class(env, class_refs[i].name);
    if (*class_refs[i].slot == NULL) {
      return JNI_ERR;
    }
  }
  for (size_t i = 0; i < COUNT(method_refs); i++) {
    jclass cls = *method_refs[i].cls;
    *method_refs[i].slot =
        method_refs[i].is_static
            ? (*env)->GetStaticMethodID(env, cls, method_refs[i].name,
                                        method_refs[i].sig)
            : (*env)->GetMethodID(env, cls, method_refs[i].name,
                                  method_refs[i].sig);
    if (*method_refs[i].slot == NULL) {
      return JNI_ERR;
    }
  }
  if (!load_exception_classes(env)) {
    return JNI_ERR;
  }
  return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
  (void)reserved;
  JNIEnv *env;
  if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) {
    return;
  }
  drop_globals(env);
}
