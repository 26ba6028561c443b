/* The options, one row each (place, type, default, range), which init, set,
 * check and the bindings' texts walk: the same messages everywhere. */
#include "internal.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* One row per option: where it lives in sfc_opts, what sfc_options_init
 * puts there, and what is in force while it is unset. */
typedef struct option_row {
  sfc_option_info info; /* default_text and choices are filled once */
  size_t offset;        /* in sfc_opts, the storage of sfc_options */
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
     offsetof(sfc_opts, rollback),
     SFC_ROLLBACK_DEFAULT,
     false,
     0,
     0},
    {{SFC_OPTION_MAX_WAIT, "max_wait", SFC_TYPE_DURATION, NULL, 0,
      SFC_MAX_WAIT_MS_MAX, NULL,
      "longest wait for the clock to catch up after it steps back"},
     offsetof(sfc_opts, max_wait_ms),
     SFC_UNSET,
     false,
     STRATEGY_UNSET,
     offsetof(sfc_rollback_info, max_wait_ms)},
    {{SFC_OPTION_MAX_DRIFT, "max_drift", SFC_TYPE_DURATION, NULL, 0,
      SFC_MAX_DRIFT_MS_MAX, NULL,
      "how far ahead of the clock IDs may be issued"},
     offsetof(sfc_opts, max_drift_ms),
     SFC_UNSET,
     false,
     STRATEGY_UNSET,
     offsetof(sfc_rollback_info, max_drift_ms)},
    {{SFC_OPTION_RANDOM_START, "random_start", SFC_TYPE_BOOL, NULL, 0, 1, NULL,
      "start each tick's sequence at a random value in its lower half"},
     offsetof(sfc_opts, random_start),
     0,
     false,
     0,
     0},
    {{SFC_OPTION_TIME_SOURCE, "time_source", SFC_TYPE_CHOICE, NULL, 0, 0,
      time_source_choices,
      "wall: read the wall clock on every call; monotonic: read it once; "
      "counter: read it when the processor's counter shows its tick over"},
     offsetof(sfc_opts, time_source),
     SFC_TIME_WALL,
     false,
     0,
     0},
    {{SFC_OPTION_STATE_DIR, "state_dir", SFC_TYPE_PATH, NULL, 1, 3000, NULL,
      "folder of lock and state files: restarts, the pool (auto), the mark"},
     offsetof(sfc_opts, state_dir),
     0,
     false,
     0,
     0},
    {{SFC_OPTION_STATE_RESERVE, "state_reserve", SFC_TYPE_DURATION, NULL, 1,
      SFC_STATE_RESERVE_MS_MAX, NULL,
      "how far ahead the state file's high-water mark is reserved"},
     offsetof(sfc_opts, state_reserve_ms),
     SFC_UNSET,
     false,
     1000,
     0},
    {{SFC_OPTION_GUARD, "guard", SFC_TYPE_BOOL, NULL, 0, 1, NULL,
      "claim the node value host-wide: refuse a second live generator that "
      "could issue the same IDs"},
     offsetof(sfc_opts, guard_off),
     1,
     true,
     0,
     0},
    {{SFC_OPTION_LEASE_DURATION, "lease_duration", SFC_TYPE_DURATION, NULL,
      1000, SFC_LEASE_DURATION_MS_MAX, NULL,
      "how long a leased node value is held by the database's clock "
      "(renewed at a third of it)"},
     offsetof(sfc_opts, lease_duration_ms),
     SFC_UNSET,
     false,
     15000,
     0},
    {{SFC_OPTION_LEASE_KEY, "lease_key", SFC_TYPE_TEXT, NULL, 1, 120, NULL,
      "the instance's stable key: its last leased value is taken again "
      "when free"},
     offsetof(sfc_opts, lease_key),
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
  const uint64_t magic = SFC_OPTIONS_MAGIC;
  memcpy((char *)opts + offsetof(sfc_opts, magic), &magic, sizeof magic);
  for (size_t i = 0; row_at(i); i++)
    store(opts, &rows[i], rows[i].initial, NULL);
}

void sfc_options_set_nodes(sfc_options *opts, const sfc_node_value *node,
                           size_t count) {
  if (!node) count = 0;
  memcpy((char *)opts + offsetof(sfc_opts, node), &node, sizeof node);
  memcpy((char *)opts + offsetof(sfc_opts, node_count), &count, sizeof count);
}

int64_t sfc_option_ms(const sfc_options *opts, sfc_option option,
                      sfc_rollback rollback) {
  const option_row *r = row_at((size_t)option);
  const int64_t ms = load(opts, r);
  if (ms != SFC_UNSET) return ms;
  return r->strategy_ms ? strategy_ms(r, rollback) : r->unset_ms;
}

sfc_status sfc_options_check(const sfc_options *opts, sfc_error *err) {
  if (sfc_opts_of(opts).magic != SFC_OPTIONS_MAGIC)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "the options were not made by sfc_options_init: call it "
                    "first, then set them");
  /* The setters checked every value; a path's length is told here, once
   * the generator is made. */
  for (size_t i = 0; row_at(i); i++) {
    const option_row *r = &rows[i];
    if (r->info.type != SFC_TYPE_PATH && r->info.type != SFC_TYPE_TEXT)
      continue;
    const char *path;
    memcpy(&path, (const char *)opts + r->offset, sizeof path);
    if (path && strlen(path) > (size_t)r->info.max)
      return sfc_fail(err, SFC_INVALID_ARGUMENT,
                      "%s is longer than %lld characters", r->info.name,
                      (long long)r->info.max);
  }
  return SFC_OK;
}

/* Sets row `r` from `value`; `name`, `len`: the option as the caller named
 * it. */
static sfc_status set_row(sfc_options *opts, const option_row *r,
                          const char *name, size_t len, const sfc_value *value,
                          sfc_error *err) {
  if (value == NULL || value->type == SFC_TYPE_NONE) {
    store(opts, r, r->initial, NULL);
    return SFC_OK;
  }
  int64_t num = 0;
  const char *text = NULL;
  sfc_status st =
      sfc_option_value(&r->info, name, len, value, &num, &text, err);
  if (st == SFC_OK) store(opts, r, num, text);
  return st;
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
                    "unknown option '%.*s'%s%sthe options are %s%s",
                    (int)(name ? (len > 40 ? 40 : len) : 6),
                    name ? name : "(null)", hint[0] ? hint : ":",
                    hint[0] ? " (" : " ", list, hint[0] ? ")" : "");
  }
  return set_row(opts, &rows[o->option], name, len, value, err);
}

sfc_status sfc_options_set_id(sfc_options *opts, sfc_option option,
                              const sfc_value *value, sfc_error *err) {
  const option_row *r = row_at((size_t)option);
  if (!r)
    return sfc_fail(err, SFC_INVALID_ARGUMENT,
                    "unknown option %d: the options are 0..%d", (int)option,
                    (int)OPTION_COUNT - 1);
  return set_row(opts, r, r->info.name, strlen(r->info.name), value, err);
}

sfc_status sfc_options_get(const sfc_options *opts, sfc_option option,
                           sfc_value *out) {
  const option_row *r = row_at((size_t)option);
  if (!r) return SFC_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  const char *text = NULL;
  switch (r->info.type) {
  case SFC_TYPE_BOOL:
    out->type = SFC_TYPE_BOOL;
    out->i = load(opts, r) != 0;
    return SFC_OK;
  case SFC_TYPE_DURATION:
    out->i = load(opts, r);
    out->type = out->i == SFC_UNSET ? SFC_TYPE_NONE : SFC_TYPE_INT;
    if (out->i == SFC_UNSET) out->i = 0;
    return SFC_OK;
  case SFC_TYPE_CHOICE:
    text = r->info.choices[load(opts, r)];
    break;
  default:
    memcpy(&text, (const char *)opts + r->offset, sizeof text);
  }
  out->type = text ? SFC_TYPE_TEXT : SFC_TYPE_NONE;
  out->text = text;
  out->len = text ? strlen(text) : 0;
  return SFC_OK;
}
