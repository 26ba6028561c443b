/* A binding's value as an option's row takes it: the conversions and the
 * messages of sfc_options_set and sfc_options_set_id. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The name as the caller gave it, for messages (at most 40 bytes). */
typedef struct {
  char text[48];
} given_name;

static given_name name_of(const char *name, size_t len) {
  given_name g;
  snprintf(g.text, sizeof g.text, "%.*s", (int)(len > 40 ? 40 : len), name);
  return g;
}

/* What was given, for messages: "a number", "text 'x'", … */
static void describe_value(const sfc_value *v, char *buf, size_t cap) {
  switch (v->type) {
  case SFC_TYPE_BOOL:
    snprintf(buf, cap, "%s", v->i ? "true" : "false");
    break;
  case SFC_TYPE_INT:
    snprintf(buf, cap, "the number %lld", (long long)v->i);
    break;
  case SFC_TYPE_UINT:
    snprintf(buf, cap, "the number %llu", (unsigned long long)v->u);
    break;
  case SFC_TYPE_DOUBLE:
    snprintf(buf, cap, "the number %g", v->d);
    break;
  case SFC_TYPE_TEXT:
    snprintf(buf, cap, "the text '%.*s'", (int)(v->len > 40 ? 40 : v->len),
             v->text ? v->text : "");
    break;
  default:
    snprintf(buf, cap, "a %s", sfc_type_name(v->type));
  }
}

static sfc_status wrong_type(const char *name, size_t len, const char *want,
                             const sfc_value *v, sfc_error *err) {
  char got[64];
  describe_value(v, got, sizeof got);
  return sfc_fail(err, SFC_INVALID_ARGUMENT, "%s must be %s, not %s",
                  name_of(name, len).text, want, got);
}

static sfc_status text_ok(const char *name, size_t len, const sfc_value *v,
                          sfc_error *err) {
  if (!v->text)
    return sfc_fail(err, SFC_INVALID_ARGUMENT, "%s: no text given",
                    name_of(name, len).text);
  return sfc_text_check(name_of(name, len).text, v->text, v->len, err);
}

static bool text_is(const sfc_value *v, const char *word) {
  return v->len == strlen(word) && memcmp(v->text, word, v->len) == 0;
}

static sfc_status duration_value(const char *name, size_t len,
                                 const sfc_option_info *o, const sfc_value *v,
                                 int64_t *ms, sfc_error *err) {
  const char *n = name_of(name, len).text;
  int64_t seconds, nanos;
  switch (v->type) {
  case SFC_TYPE_INT: /* floor division: a negative duration's nanos are
                        0..999999999 too */
    seconds = v->i / 1000 - (v->i % 1000 < 0);
    nanos = (v->i - seconds * 1000) * 1000000;
    break;
  case SFC_TYPE_UINT:
    seconds = (int64_t)(v->u / 1000);
    nanos = (int64_t)(v->u % 1000) * 1000000;
    break;
  case SFC_TYPE_DOUBLE:
    return sfc_duration_check_double(n, o->min, o->max, v->d, ms, err);
  case SFC_TYPE_DURATION:
    seconds = v->i;
    nanos = v->nanos;
    break;
  case SFC_TYPE_TEXT: {
    sfc_status st = text_ok(name, len, v, err);
    if (st != SFC_OK) return st;
    if (!sfc_duration_parse(v->text, v->len, &seconds, &nanos))
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "%s must be a duration such as 250, 250ms, 1.5s or "
                      "800us (ms when no unit is given), not '%.*s'",
                      n, (int)(v->len > 40 ? 40 : v->len), v->text);
    break;
  }
  default:
    return wrong_type(name, len, "a duration (a number of ms)", v, err);
  }
  return sfc_duration_check(n, o->min, o->max, seconds, nanos, ms, err);
}

static sfc_status choice_value(const char *name, size_t len,
                               const sfc_option_info *o, const sfc_value *v,
                               int *out, sfc_error *err) {
  if (v->type != SFC_TYPE_TEXT)
    return wrong_type(name, len, "the name of a choice", v, err);
  sfc_status st = text_ok(name, len, v, err);
  if (st != SFC_OK) return st;
  char list[160] = "";
  size_t used = 0;
  for (int i = 0; o->choices[i]; i++) {
    if (text_is(v, o->choices[i])) {
      *out = i;
      return SFC_OK;
    }
    used += (size_t)snprintf(
        list + used, used < sizeof list ? sizeof list - used : 0, "%s%s",
        i ? (o->choices[i + 1] ? ", " : " or ") : "", o->choices[i]);
  }
  return sfc_fail(err, SFC_INVALID_ARGUMENT, "unknown %s '%.*s': use %s",
                  name_of(name, len).text, (int)(v->len > 40 ? 40 : v->len),
                  v->text, list);
}

static sfc_status bool_value(const char *name, size_t len, const sfc_value *v,
                             int *out, sfc_error *err) {
  if (v->type == SFC_TYPE_BOOL) {
    *out = v->i != 0;
    return SFC_OK;
  }
  if (v->type == SFC_TYPE_TEXT && v->text &&
      (text_is(v, "true") || text_is(v, "false"))) {
    *out = text_is(v, "true");
    return SFC_OK;
  }
  return wrong_type(name, len, "true or false", v, err);
}

static sfc_status path_value(const char *name, size_t len, const sfc_value *v,
                             const char **out, sfc_error *err) {
  if (v->type != SFC_TYPE_TEXT)
    return wrong_type(name, len, "a folder's path", v, err);
  sfc_status st = text_ok(name, len, v, err);
  if (st != SFC_OK) return st;
  if (v->len == 0)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s is empty: give a folder, or none for the default",
                    name_of(name, len).text);
  if (v->text[v->len] != '\0')
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "%s: the path must end in a NUL byte (it is kept, not "
                    "copied, until the generator is created)",
                    name_of(name, len).text);
  *out = v->text;
  return SFC_OK;
}

sfc_status sfc_option_value(const sfc_option_info *o, const char *name,
                            size_t len, const sfc_value *v, int64_t *num,
                            const char **text, sfc_error *err) {
  int i = 0;
  sfc_status st;
  switch (o->type) {
  case SFC_TYPE_CHOICE:
    st = choice_value(name, len, o, v, &i, err);
    *num = i;
    return st;
  case SFC_TYPE_DURATION:
    return duration_value(name, len, o, v, num, err);
  case SFC_TYPE_BOOL:
    st = bool_value(name, len, v, &i, err);
    *num = i;
    return st;
  default:
    return path_value(name, len, v, text, err);
  }
}
