/* The options table and the one setter every binding calls: names, types,
 * defaults, ranges and the rules that turn a language's value into an
 * option, with the same messages in every language. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const rollback_choices[] = {
    "default", "error", "wait", "clock", "borrow", "switch", NULL};
static const char *const time_source_choices[] = {"wall", "monotonic", NULL};

static const sfc_option_info options[] = {
    {SFC_OPTION_ROLLBACK, "rollback", SFC_TYPE_CHOICE, "default", 0, 0,
     rollback_choices, "what to do when the wall clock goes backwards"},
    {SFC_OPTION_MAX_WAIT, "max_wait", SFC_TYPE_DURATION,
     "the strategy's (5 ms; wait and borrow: 1000 ms; clock: 0)", 0,
     SFC_MAX_WAIT_MS_MAX, NULL,
     "longest wait for the clock to catch up after it steps back"},
    {SFC_OPTION_MAX_DRIFT, "max_drift", SFC_TYPE_DURATION,
     "the strategy's (0; borrow: 1000 ms)", 0, SFC_MAX_DRIFT_MS_MAX, NULL,
     "how far ahead of the clock IDs may be issued"},
    {SFC_OPTION_RANDOM_START, "random_start", SFC_TYPE_BOOL, "false", 0, 1,
     NULL, "start each tick's sequence at a random value in its lower half"},
    {SFC_OPTION_TIME_SOURCE, "time_source", SFC_TYPE_CHOICE, "wall", 0, 0,
     time_source_choices,
     "wall: read the wall clock on every call; monotonic: read it once"},
    {SFC_OPTION_STATE_DIR, "state_dir", SFC_TYPE_PATH, "none", 0, 0, NULL,
     "folder of lock and state files: restarts, the pool (auto), the mark"},
    {SFC_OPTION_STATE_RESERVE, "state_reserve", SFC_TYPE_DURATION, "1000 ms", 1,
     SFC_STATE_RESERVE_MS_MAX, NULL,
     "how far ahead the state file's high-water mark is reserved"},
    {SFC_OPTION_GUARD, "guard", SFC_TYPE_BOOL, "true", 0, 1, NULL,
     "claim the node value host-wide: refuse a second live generator that "
     "could issue the same IDs"},
};

#define OPTION_COUNT (sizeof options / sizeof options[0])

const sfc_option_info *sfc_option_at(size_t i) {
  return i < OPTION_COUNT ? &options[i] : NULL;
}

/* Any casing of the same words: "max_wait", "maxWait", "MaxWait",
 * "max-wait". */
bool sfc_same_words(const char *given, size_t len, const char *canonical) {
  size_t i = 0;
  for (; *canonical; canonical++) {
    if (*canonical == '_') {
      if (i < len && (given[i] == '_' || given[i] == '-')) i++;
      continue;
    }
    if (i >= len || tolower((unsigned char)given[i]) != *canonical)
      return false;
    i++;
  }
  return i == len;
}

const sfc_option_info *sfc_option_find(const char *name, size_t len) {
  for (size_t i = 0; name && i < OPTION_COUNT; i++)
    if (sfc_same_words(name, len, options[i].name)) return &options[i];
  return NULL;
}

const char *sfc_type_name(sfc_type type) {
  static const char *const names[] = {"none",   "bool", "int",      "uint",
                                      "double", "text", "duration", "choice",
                                      "path",   "list", "map"};
  return (unsigned)type < sizeof names / sizeof names[0] ? names[type]
                                                         : "unknown";
}

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

/* "250", "250ms", "1.5s", "800us": a number of ms unless a unit says
 * otherwise, as seconds + nanos for the one rounding rule (a fraction of a
 * nanosecond rounds up too). */
static bool parse_duration_text(const sfc_value *v, int64_t *seconds,
                                int64_t *nanos) {
  const char *p = v->text, *end = v->text + v->len;
  const bool negative = p < end && *p == '-';
  p += negative;
  int64_t whole = 0, frac = 0, scale = 1;
  int digits = 0, frac_digits = 0;
  bool rest = false;
  for (; p < end && isdigit((unsigned char)*p); p++, digits++) {
    if (whole > INT64_C(100000000000)) return false;
    whole = whole * 10 + (*p - '0');
  }
  if (p < end && *p == '.') {
    for (p++; p < end && isdigit((unsigned char)*p); p++, frac_digits++) {
      if (frac_digits < 9) {
        frac = frac * 10 + (*p - '0');
        scale *= 10;
      } else if (*p != '0') {
        rest = true;
      }
    }
    if (!frac_digits) return false;
  }
  if (!digits && !frac_digits) return false;
  size_t unit_len = (size_t)(end - p);
  int64_t unit_ns;
  if (unit_len == 0 || (unit_len == 2 && memcmp(p, "ms", 2) == 0))
    unit_ns = 1000000;
  else if (unit_len == 1 && *p == 's')
    unit_ns = 1000000000;
  else if (unit_len == 2 && memcmp(p, "us", 2) == 0)
    unit_ns = 1000;
  else
    return false;
  int64_t product = frac * unit_ns; /* < 10^18 */
  int64_t frac_ns = product / scale + ((product % scale) || rest ? 1 : 0);
  int64_t per_second = 1000000000 / unit_ns;
  *seconds = whole / per_second;
  *nanos = whole % per_second * unit_ns + frac_ns;
  *seconds += *nanos / 1000000000;
  *nanos %= 1000000000;
  if (negative && (*seconds || *nanos)) { /* -(s + n) = -(s + 1) + (1e9 - n) */
    *seconds = -*seconds - (*nanos > 0);
    *nanos = *nanos ? 1000000000 - *nanos : 0;
  }
  return true;
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
    if (!parse_duration_text(v, &seconds, &nanos))
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

/* `words` ("max_wait") as the caller writes names, judged by `given`:
 * "maxWait" after a camelCase name, "max-wait" after a dashed one, else as
 * it is. */
static void in_casing_of(const char *given, size_t len, const char *words,
                         char *out, size_t cap) {
  bool camel = false, dashed = false;
  for (size_t i = 0; given && i < len; i++) {
    camel |= given[i] >= 'A' && given[i] <= 'Z';
    dashed |= given[i] == '-';
  }
  size_t n = 0;
  for (const char *p = words; *p && n + 1 < cap; p++) {
    if (*p == '_' && camel && p[1])
      out[n++] = (char)toupper((unsigned char)*++p);
    else
      out[n++] = *p == '_' && dashed ? '-' : *p;
  }
  out[n] = '\0';
}

sfc_status sfc_options_set(sfc_options *opts, const char *name, size_t len,
                           const sfc_value *value, sfc_error *err) {
  const sfc_option_info *o = sfc_option_find(name, len);
  if (!o) {
    char list[240] = "";
    size_t used = 0;
    for (size_t i = 0; i < OPTION_COUNT && used < sizeof list; i++) {
      char word[48];
      in_casing_of(name, len, options[i].name, word, sizeof word);
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                               i ? ", " : "", word);
    }
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "unknown option '%s': the options are %s",
                    name ? name_of(name, len).text : "(null)", list);
  }
  sfc_options d;
  sfc_options_init(&d);
  const bool reset = value == NULL || value->type == SFC_TYPE_NONE;
  sfc_status st = SFC_OK;
  int choice = 0, flag = 0;
  int64_t ms = 0;
  const char *path = NULL;
  switch (o->option) {
  case SFC_OPTION_ROLLBACK:
    if (reset)
      choice = (int)d.rollback;
    else
      st = choice_value(name, len, o, value, &choice, err);
    if (st == SFC_OK) opts->rollback = (sfc_rollback)choice;
    break;
  case SFC_OPTION_TIME_SOURCE:
    if (reset)
      choice = (int)d.time_source;
    else
      st = choice_value(name, len, o, value, &choice, err);
    if (st == SFC_OK) opts->time_source = (sfc_time_source)choice;
    break;
  case SFC_OPTION_MAX_WAIT:
  case SFC_OPTION_MAX_DRIFT:
  case SFC_OPTION_STATE_RESERVE:
    if (reset)
      ms = SFC_UNSET;
    else
      st = duration_value(name, len, o, value, &ms, err);
    if (st != SFC_OK) break;
    if (o->option == SFC_OPTION_MAX_WAIT)
      opts->max_wait_ms = ms;
    else if (o->option == SFC_OPTION_MAX_DRIFT)
      opts->max_drift_ms = ms;
    else
      opts->state_reserve_ms = ms;
    break;
  case SFC_OPTION_RANDOM_START:
  case SFC_OPTION_GUARD:
    if (reset)
      flag = o->option == SFC_OPTION_GUARD;
    else
      st = bool_value(name, len, value, &flag, err);
    if (st != SFC_OK) break;
    if (o->option == SFC_OPTION_GUARD)
      opts->guard_off = !flag;
    else
      opts->random_start = flag;
    break;
  case SFC_OPTION_STATE_DIR:
    if (!reset) st = path_value(name, len, value, &path, err);
    if (st == SFC_OK) opts->state_dir = path;
    break;
  }
  return st;
}
