/*
 * snowflake_c_jni.c — the JNI glue of the Java binding (io.snowflakec).
 *
 * Converts types and maps errors, nothing else: every rule lives in the core.
 * The natives belong to io.snowflakec.Native and are registered in JNI_OnLoad;
 * the library exports only JNI_OnLoad and JNI_OnUnload (see
 * snowflake_c_jni.map).
 *
 * A layout travels to Java as an opaque byte[] holding the sfc_layout value
 * (layouts are plain values in the core): the natives copy it back, check its
 * size and pass it on. A generator travels as its address in a jlong; the Java
 * side guarantees that no call runs once sfc_generator_free has been called.
 */
#include <jni.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snowflake_c.h"

static jclass exception_class; /* io.snowflakec.SnowflakeException */
static jmethodID exception_factory;
static jclass string_class;
static jclass object_class;

/* "Read the generator's own clock" for the now_us argument of next/nextIds. */
#define NOW_FROM_CLOCK INT64_MIN

/* ---- errors ------------------------------------------------------------- */

static void throw_status(JNIEnv *env, sfc_status status, const char *message) {
  if ((*env)->ExceptionCheck(env)) {
    return;
  }
  jstring name = (*env)->NewStringUTF(env, sfc_status_name(status));
  if (name == NULL) {
    return;
  }
  jstring msg = (*env)->NewStringUTF(env, message);
  if (msg == NULL) {
    return;
  }
  jobject ex = (*env)->CallStaticObjectMethod(
      env, exception_class, exception_factory, (jint)status, name, msg);
  if (ex != NULL && !(*env)->ExceptionCheck(env)) {
    (*env)->Throw(env, (jthrowable)ex);
  }
}

static void throw_error(JNIEnv *env, const sfc_error *err) {
  throw_status(env, err->status, err->message);
}

static void throw_invalid(JNIEnv *env, const char *message) {
  throw_status(env, SFC_INVALID_ARGUMENT, message);
}

/* ---- conversions -------------------------------------------------------- */

/* Copies a layout out of its Java byte[]; false (with an exception) when the
 * array is not one. */
static int get_layout(JNIEnv *env, jbyteArray bytes, sfc_layout *out) {
  if (bytes == NULL ||
      (*env)->GetArrayLength(env, bytes) != (jsize)sizeof(sfc_layout)) {
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
    throw_invalid(env, "Out of memory.");
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

/* A NUL-terminated copy of a byte[] (malloc'd), or NULL with an exception. */
static char *get_cstring(JNIEnv *env, jbyteArray bytes, const char *what) {
  jsize n = (*env)->GetArrayLength(env, bytes);
  char *s = malloc((size_t)n + 1);
  if (s == NULL) {
    throw_invalid(env, "Out of memory.");
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, bytes, 0, n, (jbyte *)s);
  s[n] = '\0';
  sfc_error err;
  if (sfc_text_check(what, s, (size_t)n, &err) != SFC_OK) {
    free(s);
    throw_error(env, &err);
    return NULL;
  }
  return s;
}

static jstring new_string(JNIEnv *env, const char *s) {
  return (*env)->NewStringUTF(env, s);
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

/* ---- version ------------------------------------------------------------ */

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

static jstring n_status_name(JNIEnv *env, jclass cls, jint status) {
  (void)cls;
  return new_string(env, sfc_status_name((sfc_status)status));
}

/* ---- layouts ------------------------------------------------------------ */

static jbyteArray n_layout_parse(JNIEnv *env, jclass cls, jstring jspec,
                                 jlong epoch_ms) {
  (void)cls;
  char *spec = get_text(env, jspec, "layout spec", NULL);
  if (spec == NULL) {
    return NULL;
  }
  sfc_layout layout;
  sfc_error err;
  sfc_status st = sfc_layout_parse(spec, (int64_t)epoch_ms, &layout, &err);
  free(spec);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return NULL;
  }
  return new_layout(env, &layout);
}

static jbyteArray n_layout_preset(JNIEnv *env, jclass cls, jstring jname) {
  (void)cls;
  char *name = get_text(env, jname, "preset", NULL);
  if (name == NULL) {
    return NULL;
  }
  sfc_layout layout;
  sfc_error err;
  sfc_status st = sfc_layout_preset(name, &layout, &err);
  free(name);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return NULL;
  }
  return new_layout(env, &layout);
}

/* A Java string through one of the core's text-to-int64 parsers. */
static jlong parse_int64(JNIEnv *env, jstring jtext, const char *what,
                         sfc_status (*parse)(const char *, int64_t *,
                                             sfc_error *)) {
  char *text = get_text(env, jtext, what, NULL);
  if (text == NULL) {
    return 0;
  }
  int64_t value = 0;
  sfc_error err;
  sfc_status st = parse(text, &value, &err);
  free(text);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  return (jlong)value;
}

static jlong n_epoch_parse(JNIEnv *env, jclass cls, jstring jtext) {
  (void)cls;
  return parse_int64(env, jtext, "epoch", sfc_epoch_parse);
}

static jobjectArray n_preset_names(JNIEnv *env, jclass cls) {
  (void)cls;
  size_t n = sfc_preset_count();
  jobjectArray out = (*env)->NewObjectArray(env, (jsize)n, string_class, NULL);
  for (size_t i = 0; out != NULL && i < n; i++) {
    const char *name;
    const char *spec;
    int64_t epoch_ms;
    if (sfc_preset_at(i, &name, &spec, &epoch_ms) != SFC_OK) {
      break;
    }
    jstring s = new_string(env, name);
    if (s == NULL) {
      return NULL;
    }
    (*env)->SetObjectArrayElement(env, out, (jsize)i, s);
    (*env)->DeleteLocalRef(env, s);
  }
  return out;
}

static jstring n_layout_spec(JNIEnv *env, jclass cls, jbyteArray jlayout) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout)) {
    return NULL;
  }
  char buf[SFC_SPEC_MAX];
  sfc_layout_spec(&layout, buf, sizeof buf);
  return new_string(env, buf);
}

static jobjectArray n_layout_names(JNIEnv *env, jclass cls,
                                   jbyteArray jlayout) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout)) {
    return NULL;
  }
  jobjectArray out = (*env)->NewObjectArray(env, (jsize)layout.field_count,
                                            string_class, NULL);
  for (unsigned i = 0; out != NULL && i < layout.field_count; i++) {
    jstring s = new_string(env, layout.fields[i].name);
    if (s == NULL) {
      return NULL;
    }
    (*env)->SetObjectArrayElement(env, out, (jsize)i, s);
    (*env)->DeleteLocalRef(env, s);
  }
  return out;
}

/* [epoch_ms, unit_us, total_bits, time_end_ms, max_id, field_count,
 *  seq_index, clock_index, then kind, bits, shift, max per field] */
enum { LAYOUT_HEADER = 8, LAYOUT_PER_FIELD = 4 };

static jlongArray n_layout_numbers(JNIEnv *env, jclass cls,
                                   jbyteArray jlayout) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout)) {
    return NULL;
  }
  sfc_layout_info info;
  sfc_layout_describe(&layout, &info);
  jlong v[LAYOUT_HEADER + LAYOUT_PER_FIELD * SFC_MAX_FIELDS];
  jsize n = 0;
  v[n++] = (jlong)layout.epoch_ms;
  v[n++] = (jlong)layout.unit_us;
  v[n++] = (jlong)layout.total_bits;
  v[n++] = (jlong)info.time_end_ms;
  v[n++] = (jlong)info.max_id;
  v[n++] = (jlong)layout.field_count;
  v[n++] = (jlong)layout.seq_index;
  v[n++] = (jlong)layout.clock_index;
  for (unsigned i = 0; i < layout.field_count && i < SFC_MAX_FIELDS; i++) {
    v[n++] = (jlong)layout.fields[i].kind;
    v[n++] = (jlong)layout.fields[i].bits;
    v[n++] = (jlong)layout.fields[i].shift;
    v[n++] = (jlong)layout.fields[i].max;
  }
  jlongArray out = (*env)->NewLongArray(env, n);
  if (out != NULL) {
    (*env)->SetLongArrayRegion(env, out, 0, n, v);
  }
  return out;
}

static jdoubleArray n_layout_capacity(JNIEnv *env, jclass cls,
                                      jbyteArray jlayout) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout)) {
    return NULL;
  }
  sfc_layout_info info;
  sfc_layout_describe(&layout, &info);
  jdouble v[2] = {info.ids_per_second, info.node_capacity};
  jdoubleArray out = (*env)->NewDoubleArray(env, 2);
  if (out != NULL) {
    (*env)->SetDoubleArrayRegion(env, out, 0, 2, v);
  }
  return out;
}

/* ---- decode, encode, range ---------------------------------------------- */

/* [time_us, time_ms, values per field] */
static jlongArray n_decode(JNIEnv *env, jclass cls, jbyteArray jlayout,
                           jlong id) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout) ||
      !check_signed(env, (uint64_t)id, "ID", SFC_INVALID_ARGUMENT)) {
    return NULL;
  }
  sfc_parts parts;
  sfc_error err;
  if (sfc_decode(&layout, (uint64_t)id, &parts, &err) != SFC_OK) {
    throw_error(env, &err);
    return NULL;
  }
  jlong v[2 + SFC_MAX_FIELDS];
  jsize n = 0;
  v[n++] = (jlong)parts.time_us;
  v[n++] = (jlong)parts.time_ms;
  for (unsigned i = 0; i < layout.field_count; i++) {
    v[n++] = (jlong)parts.values[i];
  }
  jlongArray out = (*env)->NewLongArray(env, n);
  if (out != NULL) {
    (*env)->SetLongArrayRegion(env, out, 0, n, v);
  }
  return out;
}

static jlong n_parse_id(JNIEnv *env, jclass cls, jstring jtext) {
  (void)cls;
  size_t len = 0;
  char *text = get_text(env, jtext, NULL, &len);
  if (text == NULL) {
    return 0;
  }
  uint64_t id = 0;
  sfc_error err;
  /* By its real length: a NUL inside is refused, never the end. */
  sfc_status st = sfc_id_parse_n(text, len, &id, &err);
  free(text);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  if (!check_signed(env, id, "ID", SFC_INVALID_ARGUMENT)) {
    return 0;
  }
  return (jlong)id;
}

/* ---- string forms ------------------------------------------------------- */

/* An encoding by name; false (with an exception) when it is none. */
static int get_encoding(JNIEnv *env, jstring jname, sfc_encoding *out) {
  size_t len = 0;
  char *name = get_text(env, jname, "encoding", &len);
  if (name == NULL) {
    return 0;
  }
  sfc_error err;
  sfc_status st = sfc_encoding_by_name(name, len, out, &err);
  free(name);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  return 1;
}

/* The long's 64 bits are the ID, read unsigned as Long.toUnsignedString
 * does. */
static jstring n_format_id(JNIEnv *env, jclass cls, jlong id, jstring jenc,
                           jboolean shortest) {
  (void)cls;
  sfc_encoding enc;
  if (!get_encoding(env, jenc, &enc)) {
    return NULL;
  }
  char buf[SFC_ENCODED_MAX];
  sfc_id_format((uint64_t)id, enc, shortest ? SFC_FORMAT_SHORTEST : 0, buf,
                sizeof buf);
  return new_string(env, buf);
}

static jlong n_parse_id_as(JNIEnv *env, jclass cls, jstring jtext,
                           jstring jenc) {
  (void)cls;
  sfc_encoding enc;
  if (!get_encoding(env, jenc, &enc)) {
    return 0;
  }
  size_t len = 0;
  char *text = get_text(env, jtext, NULL, &len);
  if (text == NULL) {
    return 0;
  }
  uint64_t id = 0;
  sfc_error err;
  /* By its real length: a NUL inside is refused, never the end. */
  sfc_status st = sfc_id_parse_as(text, len, enc, &id, &err);
  free(text);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  return (jlong)id;
}

static jstring n_parts_json(JNIEnv *env, jclass cls, jbyteArray jlayout,
                            jlong id) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout) ||
      !check_signed(env, (uint64_t)id, "ID", SFC_INVALID_ARGUMENT)) {
    return NULL;
  }
  sfc_parts parts;
  sfc_error err;
  if (sfc_decode(&layout, (uint64_t)id, &parts, &err) != SFC_OK) {
    throw_error(env, &err);
    return NULL;
  }
  char buf[SFC_JSON_MAX];
  sfc_parts_json(&layout, &parts, buf, sizeof buf);
  return new_string(env, buf);
}

static jstring n_format_iso(JNIEnv *env, jclass cls, jlong unix_ms) {
  (void)cls;
  char buf[SFC_ISO_MAX];
  sfc_format_iso((int64_t)unix_ms, buf, sizeof buf);
  return new_string(env, buf);
}

static jlong n_encode(JNIEnv *env, jclass cls, jbyteArray jlayout,
                      jlong time_us, jobjectArray jnames, jlongArray jvalues) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout)) {
    return 0;
  }
  jsize n = (*env)->GetArrayLength(env, jnames);
  if (n != (*env)->GetArrayLength(env, jvalues) || n > SFC_MAX_FIELDS) {
    throw_invalid(env, "Too many fields for a layout.");
    return 0;
  }
  jlong values[SFC_MAX_FIELDS];
  (*env)->GetLongArrayRegion(env, jvalues, 0, n, values);
  /* Names are held until the core has checked and packed them. */
  jstring jnames_held[SFC_MAX_FIELDS];
  sfc_node_value fields[SFC_MAX_FIELDS];
  jsize held = 0;
  int ok = 1;
  for (; held < n; held++) {
    jnames_held[held] =
        (jstring)(*env)->GetObjectArrayElement(env, jnames, held);
    if (jnames_held[held] == NULL) {
      throw_invalid(env, "A field name is null.");
      ok = 0;
      break;
    }
    fields[held].name = (*env)->GetStringUTFChars(env, jnames_held[held], NULL);
    if (fields[held].name == NULL) {
      (*env)->DeleteLocalRef(env, jnames_held[held]);
      ok = 0;
      break;
    }
    fields[held].value = (int64_t)values[held];
  }
  uint64_t id = 0;
  sfc_error err;
  sfc_status st = SFC_OK;
  if (ok) {
    st = sfc_encode_named(&layout, (int64_t)time_us, fields, (size_t)n, &id,
                          &err);
  }
  for (jsize i = 0; i < held; i++) {
    (*env)->ReleaseStringUTFChars(env, jnames_held[i], fields[i].name);
    (*env)->DeleteLocalRef(env, jnames_held[i]);
  }
  if (!ok) {
    return 0;
  }
  if (st != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  if (!check_signed(env, id, "ID encoded", SFC_INVALID_ARGUMENT)) {
    return 0;
  }
  return (jlong)id;
}

static jlongArray n_range(JNIEnv *env, jclass cls, jbyteArray jlayout,
                          jlong t0_ms, jlong t1_ms) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout)) {
    return NULL;
  }
  uint64_t min_id = 0;
  uint64_t max_id = 0;
  sfc_error err;
  if (sfc_range(&layout, (int64_t)t0_ms, (int64_t)t1_ms, &min_id, &max_id,
                &err) != SFC_OK) {
    throw_error(env, &err);
    return NULL;
  }
  if (!check_signed(env, min_id, "smallest ID of the range",
                    SFC_INVALID_ARGUMENT) ||
      !check_signed(env, max_id, "largest ID of the range",
                    SFC_INVALID_ARGUMENT)) {
    return NULL;
  }
  jlong v[2] = {(jlong)min_id, (jlong)max_id};
  jlongArray out = (*env)->NewLongArray(env, 2);
  if (out != NULL) {
    (*env)->SetLongArrayRegion(env, out, 0, 2, v);
  }
  return out;
}

/* ---- generator ---------------------------------------------------------- */

static sfc_generator *gen_of(jlong handle) {
  return (sfc_generator *)(intptr_t)handle;
}

static jlong n_node_value_parse(JNIEnv *env, jclass cls, jstring jtext) {
  (void)cls;
  return parse_int64(env, jtext, "node value", sfc_node_value_parse);
}

static jint n_rollback_parse(JNIEnv *env, jclass cls, jstring jname) {
  (void)cls;
  char *name = get_text(env, jname, "rollback", NULL);
  if (name == NULL) {
    return 0;
  }
  sfc_rollback rollback = SFC_ROLLBACK_DEFAULT;
  sfc_error err;
  sfc_status st = sfc_rollback_parse(name, &rollback, &err);
  free(name);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  return (jint)rollback;
}

static jlong n_generator_new(JNIEnv *env, jclass cls, jbyteArray jlayout,
                             jobjectArray jnames, jlongArray jvalues,
                             jint rollback, jlong max_wait_ms,
                             jlong max_drift_ms, jboolean random_start,
                             jint time_source, jbyteArray jstate_dir,
                             jlong state_reserve_ms, jboolean guard,
                             jbyteArray jguard_dir) {
  (void)cls;
  sfc_layout layout;
  if (!get_layout(env, jlayout, &layout)) {
    return 0;
  }
  jsize n = (*env)->GetArrayLength(env, jnames);
  if (n != (*env)->GetArrayLength(env, jvalues) || n > SFC_MAX_FIELDS) {
    throw_invalid(env, "Too many node values for a layout.");
    return 0;
  }
  jlong values[SFC_MAX_FIELDS];
  (*env)->GetLongArrayRegion(env, jvalues, 0, n, values);
  jstring names[SFC_MAX_FIELDS];
  sfc_node_value node[SFC_MAX_FIELDS];
  char *state_dir = NULL;
  char *guard_dir = NULL;
  jlong handle = 0;
  jsize got = 0;
  for (; got < n; got++) {
    names[got] = (jstring)(*env)->GetObjectArrayElement(env, jnames, got);
    node[got].name =
        names[got] ? (*env)->GetStringUTFChars(env, names[got], NULL) : NULL;
    node[got].value = (int64_t)values[got];
    if (node[got].name == NULL) {
      if (names[got] == NULL) {
        throw_invalid(env, "A node field name is null.");
      } else {
        (*env)->DeleteLocalRef(env, names[got]);
      }
      goto done;
    }
  }
  if (jstate_dir != NULL) {
    state_dir = get_cstring(env, jstate_dir, "state directory");
    if (state_dir == NULL) {
      goto done;
    }
  }
  if (jguard_dir != NULL) {
    guard_dir = get_cstring(env, jguard_dir, "guard folder");
    if (guard_dir == NULL) {
      goto done;
    }
  }
  sfc_options opts;
  sfc_options_init(&opts);
  opts.node = node;
  opts.node_count = (size_t)n;
  opts.rollback = (sfc_rollback)rollback;
  opts.max_wait_ms = (int64_t)max_wait_ms;
  opts.max_drift_ms = (int64_t)max_drift_ms;
  opts.random_start = random_start ? 1 : 0;
  opts.time_source = (sfc_time_source)time_source;
  opts.state_dir = state_dir;
  if (state_reserve_ms >= 0) {
    opts.state_reserve_ms = (int64_t)state_reserve_ms;
  }
  opts.guard_off = guard ? 0 : 1;
  opts.guard_dir = guard_dir;
  sfc_generator *gen = NULL;
  sfc_error err;
  if (sfc_generator_new(&layout, &opts, &gen, &err) != SFC_OK) {
    throw_error(env, &err);
  } else {
    handle = (jlong)(intptr_t)gen;
  }
done:
  for (jsize i = 0; i < got; i++) {
    (*env)->ReleaseStringUTFChars(env, names[i], node[i].name);
    (*env)->DeleteLocalRef(env, names[i]);
  }
  free(state_dir);
  free(guard_dir);
  return handle;
}

/* A java.time.Duration (seconds, nanos) as the whole ms of an option: the
 * core rounds up and checks the range. */
static jlong n_duration_ms(JNIEnv *env, jclass cls, jstring joption,
                           jlong seconds, jint nanos) {
  (void)cls;
  char *option = get_text(env, joption, "option", NULL);
  if (option == NULL) {
    return 0;
  }
  int64_t ms = 0;
  sfc_error err;
  sfc_status st =
      sfc_duration_ms(option, (int64_t)seconds, (int64_t)nanos, &ms, &err);
  free(option);
  if (st != SFC_OK) {
    throw_error(env, &err);
    return 0;
  }
  return (jlong)ms;
}

static void n_generator_free(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  sfc_generator_free(gen_of(handle));
}

static jbyteArray n_generator_layout(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  return new_layout(env, sfc_generator_layout(gen_of(handle)));
}

static jlong n_now_us(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jlong)sfc_generator_now_us(gen_of(handle));
}

static void n_pause(JNIEnv *env, jclass cls, jlong wait_us) {
  (void)env;
  (void)cls;
  sfc_pause((int64_t)wait_us);
}

/* The next ID (>= 0), or -1 - wait_us when the caller must wait and call
 * again; errors are thrown. */
static jlong n_next(JNIEnv *env, jclass cls, jlong handle, jlong now_us) {
  (void)cls;
  sfc_generator *gen = gen_of(handle);
  uint64_t id = 0;
  int64_t wait_us = 0;
  sfc_error err;
  /* The live entry reads the clock after the state word: a thread preempted
   * in between never mistakes its stale reading for a rollback. */
  sfc_status st = now_us == NOW_FROM_CLOCK
                      ? sfc_next_now(gen, &id, &wait_us, &err)
                      : sfc_next_at(gen, (int64_t)now_us, &id, &wait_us, &err);
  if (st == SFC_OK) {
    if (id > (uint64_t)INT64_MAX) {
      check_signed(env, id, "ID issued", SFC_TIME_EXHAUSTED);
      return 0;
    }
    return (jlong)id;
  }
  if (st == SFC_WAIT) {
    return -1 - (wait_us < 0 ? 0 : wait_us);
  }
  throw_error(env, &err);
  return 0;
}

/* IDs are issued into a buffer here and copied into the Java array region
 * by region: a critical section on the array may hand out a copy (it does
 * under -Xcheck:jni) whose write-back would overwrite what other threads
 * wrote meanwhile into other parts of the same array. */
enum { FILL_CHUNK = 2048 };

/* Fills dst[off, off + len) and returns how many were filled. out[0] gets
 * that count and out[1] the wait the core asked for (-1 when none), both
 * written before an error is thrown: the IDs already issued stay valid. */
static jint n_next_ids(JNIEnv *env, jclass cls, jlong handle, jlong now_us,
                       jlongArray dst, jint off, jint len, jlongArray out) {
  (void)cls;
  sfc_generator *gen = gen_of(handle);
  jsize cap = (*env)->GetArrayLength(env, dst);
  if (off < 0 || len < 0 || off > cap || len > cap - off ||
      (*env)->GetArrayLength(env, out) < 2) {
    throw_invalid(env, "The range to fill is outside the array.");
    return 0;
  }
  int from_clock = now_us == NOW_FROM_CLOCK;
  uint64_t buf[FILL_CHUNK];
  size_t done = 0;
  size_t total = (size_t)len;
  int64_t wait_us = -1;
  sfc_error err;
  sfc_status st = SFC_OK;
  uint64_t unfit = 0;
  while (done < total) {
    size_t want = total - done < FILL_CHUNK ? total - done : FILL_CHUNK;
    size_t got = 0;
    st = from_clock ? sfc_next_ids_now(gen, buf, want, &got, &wait_us, &err)
                    : sfc_next_ids_at(gen, (int64_t)now_us, buf, want, &got,
                                      &wait_us, &err);
    size_t fit = 0;
    while (fit < got && buf[fit] <= (uint64_t)INT64_MAX) {
      fit++;
    }
    (*env)->SetLongArrayRegion(env, dst, off + (jsize)done, (jsize)fit,
                               (const jlong *)buf);
    done += fit;
    if (fit < got) {
      unfit = buf[fit];
      break;
    }
    if (st != SFC_OK) {
      break;
    }
  }
  jlong result[2] = {(jlong)done,
                     st == SFC_WAIT ? (jlong)(wait_us < 0 ? 0 : wait_us) : -1};
  (*env)->SetLongArrayRegion(env, out, 0, 2, result);
  if (unfit != 0) {
    check_signed(env, unfit, "ID issued", SFC_TIME_EXHAUSTED);
  } else if (st != SFC_OK && st != SFC_WAIT) {
    throw_error(env, &err);
  }
  return (jint)done;
}

/* [numbers, strings, guard]: numbers = ids_issued, waits, borrowed_ticks,
 * rollbacks, rollbacks_waited, rollbacks_refused, clock_bumps, last_time_ms,
 * clock, max_wait_ms, max_drift_ms, then one value per node field; strings =
 * rollback name, then name and source name per node field; guard = the
 * guard's text as bytes, since it may hold a path in the platform's own
 * encoding (Java decodes it as it encoded the folder). */
static jobjectArray n_stats(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  sfc_stats s;
  sfc_generator_stats(gen_of(handle), &s);
  unsigned nodes =
      s.node_count < SFC_MAX_FIELDS ? s.node_count : SFC_MAX_FIELDS;
  jlong v[11 + SFC_MAX_FIELDS];
  jsize n = 0;
  v[n++] = (jlong)s.ids_issued;
  v[n++] = (jlong)s.waits;
  v[n++] = (jlong)s.borrowed_ticks;
  v[n++] = (jlong)s.rollbacks;
  v[n++] = (jlong)s.rollbacks_waited;
  v[n++] = (jlong)s.rollbacks_refused;
  v[n++] = (jlong)s.clock_bumps;
  v[n++] = (jlong)s.last_time_ms;
  v[n++] = (jlong)s.clock;
  v[n++] = (jlong)s.max_wait_ms;
  v[n++] = (jlong)s.max_drift_ms;
  for (unsigned i = 0; i < nodes; i++) {
    v[n++] = (jlong)s.node_values[i];
  }
  const char *guard_text = s.guard ? s.guard : "";
  jsize guard_len = (jsize)strlen(guard_text);
  jobjectArray out = (*env)->NewObjectArray(env, 3, object_class, NULL);
  jlongArray numbers = (*env)->NewLongArray(env, n);
  jobjectArray strings =
      (*env)->NewObjectArray(env, (jsize)(1 + 2 * nodes), string_class, NULL);
  jbyteArray guard = (*env)->NewByteArray(env, guard_len);
  if (out == NULL || numbers == NULL || strings == NULL || guard == NULL) {
    return NULL;
  }
  (*env)->SetLongArrayRegion(env, numbers, 0, n, v);
  (*env)->SetByteArrayRegion(env, guard, 0, guard_len,
                             (const jbyte *)guard_text);
  const char *texts[1 + 2 * SFC_MAX_FIELDS];
  texts[0] = sfc_rollback_name(s.rollback);
  for (unsigned i = 0; i < nodes; i++) {
    texts[1 + 2 * i] = s.node_names[i];
    texts[2 + 2 * i] = sfc_node_source_name(s.node_sources[i]);
  }
  for (unsigned i = 0; i < 1 + 2 * nodes; i++) {
    jstring str = new_string(env, texts[i] ? texts[i] : "");
    if (str == NULL) {
      return NULL;
    }
    (*env)->SetObjectArrayElement(env, strings, (jsize)i, str);
    (*env)->DeleteLocalRef(env, str);
  }
  (*env)->SetObjectArrayElement(env, out, 0, numbers);
  (*env)->SetObjectArrayElement(env, out, 1, strings);
  (*env)->SetObjectArrayElement(env, out, 2, guard);
  return out;
}

/* ---- registration ------------------------------------------------------- */

#define LAYOUT "[B"
#define STR "Ljava/lang/String;"

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
    {"statusName", "(I)" STR, (void *)n_status_name},
    {"layoutParse", "(" STR "J)" LAYOUT, (void *)n_layout_parse},
    {"layoutPreset", "(" STR ")" LAYOUT, (void *)n_layout_preset},
    {"epochParse", "(" STR ")J", (void *)n_epoch_parse},
    {"presetNames", "()[" STR, (void *)n_preset_names},
    {"layoutSpec", "(" LAYOUT ")" STR, (void *)n_layout_spec},
    {"layoutNames", "(" LAYOUT ")[" STR, (void *)n_layout_names},
    {"layoutNumbers", "(" LAYOUT ")[J", (void *)n_layout_numbers},
    {"layoutCapacity", "(" LAYOUT ")[D", (void *)n_layout_capacity},
    {"decode", "(" LAYOUT "J)[J", (void *)n_decode},
    {"parseId", "(" STR ")J", (void *)n_parse_id},
    {"formatId", "(J" STR "Z)" STR, (void *)n_format_id},
    {"parseIdAs", "(" STR STR ")J", (void *)n_parse_id_as},
    {"partsJson", "(" LAYOUT "J)" STR, (void *)n_parts_json},
    {"formatIso", "(J)" STR, (void *)n_format_iso},
    {"encode", "(" LAYOUT "J[" STR "[J)J", (void *)n_encode},
    {"range", "(" LAYOUT "JJ)[J", (void *)n_range},
    {"nodeValueParse", "(" STR ")J", (void *)n_node_value_parse},
    {"rollbackParse", "(" STR ")I", (void *)n_rollback_parse},
    {"durationMs", "(" STR "JI)J", (void *)n_duration_ms},
    {"generatorNew", "(" LAYOUT "[" STR "[JIJJZI[BJZ[B)J",
     (void *)n_generator_new},
    {"generatorFree", "(J)V", (void *)n_generator_free},
    {"generatorLayout", "(J)" LAYOUT, (void *)n_generator_layout},
    {"nowUs", "(J)J", (void *)n_now_us},
    {"pause", "(J)V", (void *)n_pause},
    {"next", "(JJ)J", (void *)n_next},
    {"nextIds", "(JJ[JII[J)I", (void *)n_next_ids},
    {"stats", "(J)[Ljava/lang/Object;", (void *)n_stats},
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
  if ((*env)->RegisterNatives(env, native_class, methods,
                              (jint)(sizeof methods / sizeof methods[0])) !=
      JNI_OK) {
    return JNI_ERR;
  }
  (*env)->DeleteLocalRef(env, native_class);
  exception_class = global_class(env, "io/snowflakec/SnowflakeException");
  string_class = global_class(env, "java/lang/String");
  object_class = global_class(env, "java/lang/Object");
  if (exception_class == NULL || string_class == NULL || object_class == NULL) {
    return JNI_ERR;
  }
  exception_factory = (*env)->GetStaticMethodID(
      env, exception_class, "fromStatus",
      "(I" STR STR ")Lio/snowflakec/SnowflakeException;");
  if (exception_factory == NULL) {
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
  (*env)->DeleteGlobalRef(env, exception_class);
  (*env)->DeleteGlobalRef(env, string_class);
  (*env)->DeleteGlobalRef(env, object_class);
  exception_class = NULL;
  string_class = NULL;
  object_class = NULL;
}
