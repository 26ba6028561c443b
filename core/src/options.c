/* The options, one row each (place, type, default, range), which init, set,
 * check and the bindings' texts walk: the same messages everywhere. */
#include "internal.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* One row per option: where it lives in sfc_options, what sfc_options_init
 * puts there, and what is in force while it is unset. */
typedef struct option_row {
  sfc_option_info info; /* default_text and choices are filled once */
  size_t offset;        /* in sfc_options */
  int64_t initial;      /* BOOL as the option means it, CHOICE its index */
  bool negated;         /* BOOL stored as its opposite (guard: guard_off) */
  int64_t unset_ms;     /* DURATION left SFC_UNSET: this, or the strategy's */
  size_t strategy_ms;   /* … the field of sfc_rollback_info, when not 0 */
} option_row;

#define STRATEGY_UNSET (-1)

static const char *time_source_choices[] = {"wall", "monotonic", "counter",
                                            NULL};
static const char *rollback_choices[SFC_ROLLBACK_COUNT + 1];

static option_row rows[] = {
    {{SFC_OPTION_ROLLBACK, "rollback", SFC_TYPE_CHOICE, NULL, 0, 0, NULL,
      "what to do when the wall clock goes backwards"},
     offsetof(sfc_options, rollback),
     SFC_ROLLBACK_DEFAULT,
     false,
     0,
     0},
    {{SFC_OPTION_MAX_WAIT, "max_wait", SFC_TYPE_DURATION, NULL, 0,
      SFC_MAX_WAIT_MS_MAX, NULL,
      "longest wait for the clock to catch up after it steps back"},
     offsetof(sfc_options, max_wait_ms),
     SFC_UNSET,
     false,
     STRATEGY_UNSET,
     offsetof(sfc_rollback_info, max_wait_ms)},
    {{SFC_OPTION_MAX_DRIFT, "max_drift", SFC_TYPE_DURATION, NULL, 0,
      SFC_MAX_DRIFT_MS_MAX, NULL,
      "how far ahead of the clock IDs may be issued"},
     offsetof(sfc_options, max_drift_ms),
     SFC_UNSET,
     false,
     STRATEGY_UNSET,
     offsetof(sfc_rollback_info, max_drift_ms)},
    {{SFC_OPTION_RANDOM_START, "random_start", SFC_TYPE_BOOL, NULL, 0, 1, NULL,
      "start each tick's sequence at a random value in its lower half"},
     offsetof(sfc_options, random_start),
     0,
     false,
     0,
     0},
    {{SFC_OPTION_TIME_SOURCE, "time_source", SFC_TYPE_CHOICE, NULL, 0, 0,
      time_source_choices,
      "wall: read the wall clock on every call; monotonic: read it once; "
      "counter: read it when the processor's counter shows its tick over"},
     offsetof(sfc_options, time_source),
     SFC_TIME_WALL,
     false,
     0,
     0},
    {{SFC_OPTION_STATE_DIR, "state_dir", SFC_TYPE_PATH, NULL, 1, 3000, NULL,
      "folder of lock and state files: restarts, the pool (auto), the mark"},
     offsetof(sfc_options, state_dir),
     0,
     false,
     0,
     0},
    {{SFC_OPTION_STATE_RESERVE, "state_reserve", SFC_TYPE_DURATION, NULL, 1,
      SFC_STATE_RESERVE_MS_MAX, NULL,
      "how far ahead the state file's high-water mark is reserved"},
     offsetof(sfc_options, state_reserve_ms),
     SFC_UNSET,
     false,
     1000,
     0},
    {{SFC_OPTION_GUARD, "guard", SFC_TYPE_BOOL, NULL, 0, 1, NULL,
      "claim the node value host-wide: refuse a second live generator that "
      "could issue the same IDs"},
     offsetof(sfc_options, guard_off),
     1,
     true,
     0,
     0},
    {{SFC_OPTION_LEASE_DURATION, "lease_duration", SFC_TYPE_DURATION, NULL,
      1000, SFC_LEASE_DURATION_MS_MAX, NULL,
      "how long a leased node value is held by the database's clock "
      "(renewed at a third of it)"},
     offsetof(sfc_options, lease_duration_ms),
     SFC_UNSET,
     false,
     15000,
     0},
    {{SFC_OPTION_LEASE_KEY, "lease_key", SFC_TYPE_TEXT, NULL, 1, 120, NULL,
      "the instance's stable key: its last leased value is taken again "
      "when free"},
     offsetof(sfc_options, lease_key),
     0,
     false,
     0,
     0},
};

#define OPTION_COUNT (sizeof rows / sizeof rows[0])

/* Each row stands at its option's number. */
_Static_assert(SFC_OPTION_LEASE_KEY == OPTION_COUNT - 1, "one row per option");
/* Choices are stored as the enum they name. */
_Static_assert(sizeof(sfc_rollback) == sizeof(int) &&
                   sizeof(sfc_time_source) == sizeof(int),
               "enums stored as int");

static int64_t strategy_ms(const option_row *r, sfc_rollback rollback) {
  const char *info = (const char *)sfc_rollback_at((size_t)rollback);
  int64_t ms;
  memcpy(&ms, info + r->strategy_ms, sizeof ms);
  return ms;
}

/* "the strategy's: 5 ms (default, switch), 1000 ms (wait, borrow), …" */
static void strategy_text(const option_row *r, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "the strategy's:");
  bool done[SFC_ROLLBACK_COUNT] = {false};
  for (int i = 0; sfc_rollback_at((size_t)i); i++) {
    if (done[i]) continue;
    const int64_t ms = strategy_ms(r, (sfc_rollback)i);
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s %lld ms (",
                          i ? "," : "", (long long)ms);
    for (int j = i, first = 1; sfc_rollback_at((size_t)j); j++) {
      if (strategy_ms(r, (sfc_rollback)j) != ms) continue;
      done[j] = true;
      n +=
          (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s",
                           first ? "" : ", ", sfc_rollback_at((size_t)j)->name);
      first = 0;
    }
    n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, ")");
  }
}

static char default_texts[OPTION_COUNT][160];
static sfc_once_flag filled = SFC_ONCE_INIT;

/* The rows' texts, from the rows and the strategies' table. */
static void fill_rows(void) {
  for (size_t i = 0; sfc_rollback_at(i); i++)
    rollback_choices[i] = sfc_rollback_at(i)->name;
  rows[SFC_OPTION_ROLLBACK].info.choices = rollback_choices;
  for (size_t i = 0; i < OPTION_COUNT; i++) {
    option_row *r = &rows[i];
    char *text = default_texts[i];
    const size_t cap = sizeof default_texts[i];
    switch (r->info.type) {
    case SFC_TYPE_CHOICE:
      snprintf(text, cap, "%s", r->info.choices[r->initial]);
      break;
    case SFC_TYPE_BOOL:
      snprintf(text, cap, "%s", r->initial ? "true" : "false");
      break;
    case SFC_TYPE_DURATION:
      if (r->strategy_ms)
        strategy_text(r, text, cap);
      else
        snprintf(text, cap, "%lld ms", (long long)r->unset_ms);
      break;
    default:
      snprintf(text, cap, "none");
    }
    r->info.default_text = text;
  }
}

static const option_row *row_at(size_t i) {
  sfc_once(&filled, fill_rows);
  return i < OPTION_COUNT ? &rows[i] : NULL;
}

const sfc_option_info *sfc_option_at(size_t i) {
  const option_row *r = row_at(i);
  return r ? &r->info : NULL;
}

const sfc_option_info *sfc_option_find(const char *name, size_t len) {
  for (size_t i = 0; name && row_at(i); i++)
    if (sfc_same_words(name, len, rows[i].info.name)) return &rows[i].info;
  return NULL;
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

static void *field_of(sfc_options *opts, const option_row *r) {
  return (char *)opts + r->offset;
}

/* Stores `v` (BOOL as the option means it, CHOICE an index, DURATION ms,
 * PATH a pointer in `path`) where the row says. */
static void store(sfc_options *opts, const option_row *r, int64_t v,
                  const char *path) {
  void *at = field_of(opts, r);
  int i = (int)(r->negated ? !v : v);
  switch (r->info.type) {
  case SFC_TYPE_DURATION:
    memcpy(at, &v, sizeof v);
    break;
  case SFC_TYPE_PATH:
  case SFC_TYPE_TEXT:
    memcpy(at, &path, sizeof path);
    break;
  default:
    memcpy(at, &i, sizeof i);
  }
}

/* What is stored where the row says, as store() took it. */
static int64_t load(const sfc_options *opts, const option_row *r) {
  const void *at = (const char *)opts + r->offset;
  if (r->info.type == SFC_TYPE_DURATION) {
    int64_t v;
    memcpy(&v, at, sizeof v);
    return v;
  }
  int i;
  memcpy(&i, at, sizeof i);
  return r->negated ? !i : i;
}

void sfc_options_init(sfc_options *opts) {
  memset(opts, 0, sizeof *opts);
  for (size_t i = 0; row_at(i); i++)
    store(opts, &rows[i], rows[i].initial, NULL);
}

int64_t sfc_option_ms(const sfc_options *opts, sfc_option option,
                      sfc_rollback rollback) {
  const option_row *r = row_at((size_t)option);
  const int64_t ms = load(opts, r);
  if (ms != SFC_UNSET) return ms;
  return r->strategy_ms ? strategy_ms(r, rollback) : r->unset_ms;
}

sfc_status sfc_options_check(const sfc_options *opts, sfc_error *err) {
  for (size_t i = 0; row_at(i); i++) {
    const option_row *r = &rows[i];
    const char *name = r->info.name;
    switch (r->info.type) {
    case SFC_TYPE_CHOICE: {
      const int64_t v = load(opts, r);
      int count = 0;
      while (r->info.choices[count])
        count++;
      if (v < 0 || v >= count)
        return sfc_fail(err, SFC_INVALID_ARGUMENT,
                        "unknown %s %lld: the choices are 0..%d", name,
                        (long long)v, count - 1);
      break;
    }
    case SFC_TYPE_DURATION: {
      const int64_t ms = load(opts, r);
      if (ms == SFC_UNSET) break;
      /* The setter's own check and message, for a value set directly. */
      const int64_t s = ms / 1000 - (ms % 1000 < 0);
      int64_t out;
      sfc_status st = sfc_duration_check(name, r->info.min, r->info.max, s,
                                         (ms - s * 1000) * 1000000, &out, err);
      if (st != SFC_OK) return st;
      break;
    }
    case SFC_TYPE_PATH:
    case SFC_TYPE_TEXT: {
      const char *path;
      memcpy(&path, (const char *)opts + r->offset, sizeof path);
      if (path && strlen(path) > (size_t)r->info.max)
        return sfc_fail(err, SFC_INVALID_ARGUMENT,
                        "%s is longer than %lld characters", name,
                        (long long)r->info.max);
      break;
    }
    default:
      break;
    }
  }
  return SFC_OK;
}

sfc_status sfc_options_set(sfc_options *opts, const char *name, size_t len,
                           const sfc_value *value, sfc_error *err) {
  const sfc_option_info *o = sfc_option_find(name, len);
  if (!o) {
    /* The options, and the generator's own arguments beside them (a
     * `nodes=` means node), in the caller's casing. */
    static const char *const arguments[] = {"preset", "layout", "epoch", "node",
                                            "lease"};
    enum { ARGS = sizeof arguments / sizeof arguments[0] };
    char list[240] = "", words[OPTION_COUNT + ARGS][48], hint[160];
    const char *candidates[OPTION_COUNT + ARGS];
    size_t used = 0, n = 0;
    for (size_t i = 0; row_at(i); i++, n++) {
      sfc_in_casing_of(name, len, rows[i].info.name, words[n], sizeof words[n]);
      candidates[n] = words[n];
      if (used < sizeof list)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 i ? ", " : "", words[n]);
    }
    for (size_t i = 0; i < ARGS; i++)
      candidates[n++] = arguments[i];
    sfc_suggest(name, name ? len : 0, candidates, n, "", "", hint, sizeof hint);
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "unknown option '%s'%s%sthe options are %s%s",
                    name ? name_of(name, len).text : "(null)",
                    hint[0] ? hint : ":", hint[0] ? " (" : " ", list,
                    hint[0] ? ")" : "");
  }
  const option_row *r = &rows[o->option];
  if (value == NULL || value->type == SFC_TYPE_NONE) {
    store(opts, r, r->initial, NULL);
    return SFC_OK;
  }
  sfc_status st = SFC_OK;
  int choice = 0, flag = 0;
  int64_t ms = 0;
  const char *path = NULL;
  switch (o->type) {
  case SFC_TYPE_CHOICE:
    st = choice_value(name, len, o, value, &choice, err);
    if (st == SFC_OK) store(opts, r, choice, NULL);
    break;
  case SFC_TYPE_DURATION:
    st = duration_value(name, len, o, value, &ms, err);
    if (st == SFC_OK) store(opts, r, ms, NULL);
    break;
  case SFC_TYPE_BOOL:
    st = bool_value(name, len, value, &flag, err);
    if (st == SFC_OK) store(opts, r, flag, NULL);
    break;
  default:
    st = path_value(name, len, value, &path, err);
    if (st == SFC_OK) store(opts, r, 0, path);
    break;
  }
  return st;
}
