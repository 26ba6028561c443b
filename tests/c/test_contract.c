/* The binding contract beyond the shared vectors (contract.json): option
 * names in every casing, each value type against each option type, the
 * text forms of durations, node values, the trio rule, the tables' shape,
 * and a closed generator. */
#include "check.h"

static sfc_value text(const char *t) {
  sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, t, strlen(t), 0};
  return v;
}

static sfc_value integer(int64_t i) {
  sfc_value v = {SFC_TYPE_INT, i, 0, 0, NULL, 0, 0};
  return v;
}

static sfc_value real(double d) {
  sfc_value v = {SFC_TYPE_DOUBLE, 0, 0, d, NULL, 0, 0};
  return v;
}

static sfc_value flag(int on) {
  sfc_value v = {SFC_TYPE_BOOL, on, 0, 0, NULL, 0, 0};
  return v;
}

/* sfc_options_set by a NUL-terminated name; the status. */
static sfc_status set(sfc_options *o, const char *name, sfc_value v,
                      sfc_error *err) {
  return sfc_options_set(o, name, strlen(name), &v, err);
}

static void names(void) {
  const char *same[] = {"max_wait", "maxWait", "MaxWait", "max-wait",
                        "MAX_WAIT"};
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
    const sfc_option_info *o = sfc_option_find(same[i], strlen(same[i]));
    CHECK(o && o->option == SFC_OPTION_MAX_WAIT, "%s", same[i]);
  }
  const char *other[] = {"maxwaits", "max_wait_ms", "max__wait", "_max_wait",
                         "",         "max"};
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
    CHECK(!sfc_option_find(other[i], strlen(other[i])), "'%s'", other[i]);
  /* A name of known length needs no NUL. */
  CHECK(sfc_option_find("state_dirXYZ", 9)->option == SFC_OPTION_STATE_DIR,
        "state_dir by length");
  CHECK(!sfc_option_find(NULL, 0), "NULL");

  /* The table: every entry's enum is its position, names are snake_case,
   * ranges hold their defaults. */
  const sfc_option_info *o;
  size_t n = 0;
  for (; (o = sfc_option_at(n)); n++) {
    CHECK(o->option == (sfc_option)n, "%s at %zu", o->name, n);
    CHECK(o->doc && o->doc[0] && o->default_text, "%s documented", o->name);
    CHECK(o->type != SFC_TYPE_CHOICE || (o->choices && o->choices[0]), "%s",
          o->name);
    for (const char *p = o->name; *p; p++)
      CHECK((*p >= 'a' && *p <= 'z') || *p == '_', "%s", o->name);
  }
  /* At least the ids named here; the whole table, row by row, is the
   * vectors' (test_vectors: contract.json), so that a row added is checked
   * there alone. */
  CHECK(n > SFC_OPTION_LEASE_KEY, "%zu options", n);

  /* The message names the option as given. */
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_error err;
  CHECK(set(&opts, "maxDrift", integer(-3), &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "maxDrift"),
        "%s", err.message);
  CHECK(set(&opts, "frobnicate", integer(1), &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "frobnicate") &&
            strstr(err.message, "guard, lease_duration, lease_key"),
        "%s", err.message);
  /* The list in the casing the caller writes. */
  CHECK(set(&opts, "maxWaits", integer(1), &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "stateReserve, ") != NULL &&
            strstr(err.message, "state_reserve") == NULL,
        "%s", err.message);
}

static void values(void) {
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_error err;
  /* Durations: each value type, the one rounding rule. */
  struct {
    sfc_value v;
    int64_t ms; /* -1: refused */
  } d[] = {
      {integer(7), 7},          {real(0.000001), 1},
      {real(2.0), 2},           {text("0"), 0},
      {text("2.5"), 3},         {text("1s"), 1000},
      {text("1.0000001ms"), 2}, {text("0.0000000001s"), 1},
      {text("999us"), 1},       {text("1001us"), 2},
      {text(".5"), 1},          {text("-0"), 0},
      {text(""), -1},           {text("1."), -1},
      {text("1 ms"), -1},       {text("1e3"), -1},
      {text("+1"), -1},         {text("ms"), -1},
      {real(-0.1), -1},         {flag(1), -1},
  };
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
    set_ms(&opts, SFC_OPTION_MAX_WAIT, 12345);
    sfc_status st = set(&opts, "max_wait", d[i].v, &err);
    if (d[i].ms < 0)
      CHECK(st == SFC_INVALID_ARGUMENT &&
                get_ms(&opts, SFC_OPTION_MAX_WAIT) == 12345,
            "case %zu: %s", i, sfc_status_name(st));
    else
      CHECK(st == SFC_OK && get_ms(&opts, SFC_OPTION_MAX_WAIT) == d[i].ms,
            "case %zu: %s, %lld ms", i, err.message,
            (long long)get_ms(&opts, SFC_OPTION_MAX_WAIT));
  }
  sfc_value dur = {SFC_TYPE_DURATION, 1, 0, 0, NULL, 0, 1};
  CHECK_STATUS(set(&opts, "state_reserve", dur, &err), SFC_OK, err);
  CHECK(get_ms(&opts, SFC_OPTION_STATE_RESERVE) == 1001, "%lld",
        (long long)get_ms(&opts, SFC_OPTION_STATE_RESERVE));
  sfc_value none = {SFC_TYPE_NONE, 0, 0, 0, NULL, 0, 0};
  CHECK_STATUS(set(&opts, "state_reserve", none, &err), SFC_OK, err);
  CHECK(get_ms(&opts, SFC_OPTION_STATE_RESERVE) == INT64_MIN,
        "none restores the default");
  sfc_value big = {SFC_TYPE_UINT, 0, UINT64_MAX, 0, NULL, 0, 0};
  CHECK(set(&opts, "max_wait", big, &err) == SFC_INVALID_ARGUMENT, "%s",
        err.message);

  /* Choices, flags and paths. */
  CHECK_STATUS(set(&opts, "rollback", text("switch"), &err), SFC_OK, err);
  CHECK(strcmp(get_text(&opts, SFC_OPTION_ROLLBACK), "switch") == 0, "switch");
  CHECK(set(&opts, "rollback", text("Switch"), &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "borrow"),
        "%s", err.message);
  CHECK_STATUS(set(&opts, "guard", flag(0), &err), SFC_OK, err);
  CHECK(!get_bool(&opts, SFC_OPTION_GUARD), "guard off");
  CHECK_STATUS(set(&opts, "guard", none, &err), SFC_OK, err);
  CHECK(get_bool(&opts, SFC_OPTION_GUARD), "guard on by default");
  CHECK(set(&opts, "random_start", text("yes"), &err) == SFC_INVALID_ARGUMENT,
        "yes is not a flag");
  const char *dir = "/tmp/some folder";
  CHECK_STATUS(set(&opts, "state_dir", text(dir), &err), SFC_OK, err);
  CHECK(get_text(&opts, SFC_OPTION_STATE_DIR) == dir,
        "the path is kept, not copied");
  sfc_value cut = {SFC_TYPE_TEXT, 0, 0, 0, dir, 4, 0};
  CHECK(sfc_options_set(&opts, "state_dir", 9, &cut, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "NUL"),
        "a path must end at its length: %s", err.message);
  sfc_value nul = {SFC_TYPE_TEXT, 0, 0, 0, "ab\0cd", 5, 0};
  CHECK(sfc_options_set(&opts, "state_dir", 9, &nul, &err) ==
            SFC_INVALID_ARGUMENT,
        "a NUL inside: %s", err.message);
  CHECK(get_text(&opts, SFC_OPTION_STATE_DIR) == dir, "unchanged");

  /* An unknown name: the near ones among the options and the generator's
   * own arguments, in the caller's casing, then the options. */
  CHECK(set(&opts, "nodes", flag(1), &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "unknown option 'nodes': did you mean node? "
                                "(the options are rollback, max_wait,"),
        "%s", err.message);
  CHECK(set(&opts, "maxWaits", flag(1), &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "did you mean maxWait? (the options are "
                                "rollback, maxWait,"),
        "%s", err.message);
  CHECK(set(&opts, "colour", flag(1), &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "unknown option 'colour': the options are "
                                "rollback,"),
        "nothing near: %s", err.message);
  char hint[80];
  const char *const names[] = {"gen", "decode", "layout"};
  CHECK(sfc_suggest("dcode", 5, names, 3, "--", "'", hint, sizeof hint) > 0 &&
            strcmp(hint, ": did you mean '--decode'?") == 0,
        "%s", hint);
  CHECK(sfc_suggest("zzzzzz", 6, names, 3, "", "", hint, sizeof hint) == 0 &&
            hint[0] == '\0',
        "none near: '%s'", hint);
}

static void node_values(void) {
  sfc_node_value n;
  sfc_error err;
  sfc_value v = text("auto");
  CHECK_STATUS(sfc_node_value_set(&n, "worker", &v, &err), SFC_OK, err);
  CHECK(n.source == SFC_SOURCE_POOL && !strcmp(n.name, "worker"), "auto");
  v = text("host");
  CHECK_STATUS(sfc_node_value_set(&n, NULL, &v, &err), SFC_OK, err);
  CHECK(n.source == SFC_SOURCE_HOST && n.name == NULL, "host");
#if defined(_WIN32)
  _putenv_s("SFC_CONTRACT_INDEX", "12");
#else
  setenv("SFC_CONTRACT_INDEX", "12", 1);
#endif
  v = text("env:SFC_CONTRACT_INDEX");
  CHECK_STATUS(sfc_node_value_set(&n, "worker", &v, &err), SFC_OK, err);
  CHECK(n.source == SFC_SOURCE_ENV && n.value == 12, "env");
  v = integer(-2);
  CHECK(sfc_node_value_set(&n, "worker", &v, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "negative"),
        "%s", err.message);
  v = text("-3");
  CHECK(sfc_node_value_set(&n, "worker", &v, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "node value worker=-3 is negative"),
        "%s", err.message);
  /* -0 is not negative, and a node value is digits alone: the sign is
   * what is refused, as +3's is. */
  const char *const signed_texts[] = {"-0", "-00", "+0", "+3"};
  for (size_t i = 0; i < sizeof signed_texts / sizeof *signed_texts; i++) {
    char want[64];
    snprintf(want, sizeof want, "node value worker=%s has a sign: give",
             signed_texts[i]);
    v = text(signed_texts[i]);
    CHECK(sfc_node_value_set(&n, "worker", &v, &err) == SFC_INVALID_ARGUMENT &&
              strstr(err.message, want) && !strstr(err.message, "negative"),
          "%s: %s", signed_texts[i], err.message);
  }
  v = text("-0");
  CHECK(sfc_node_value_set(&n, NULL, &v, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "node value -0 has a sign"),
        "%s", err.message);
  v = flag(1);
  CHECK(sfc_node_value_set(&n, "worker", &v, &err) == SFC_INVALID_ARGUMENT,
        "a flag is no node value");

  /* The range is the generator's to check, with the field named. */
  sfc_layout l;
  sfc_layout_parse("time:41@1ms,worker:4,seq:12", 1704067200000, &l, &err);
  sfc_node_value node[] = {{NULL, 16, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  set_bool(&opts, SFC_OPTION_GUARD, false);
  sfc_options_set_nodes(&opts, node, 1);
  sfc_generator *g = NULL;
  CHECK(sfc_generator_new(&l, &opts, &g, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "worker"),
        "%s", err.message);
  node[0].value = 15;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &g, &err), SFC_OK, err);
  sfc_generator_free(g);
  node[0].source = (sfc_node_source)9;
  CHECK(sfc_generator_new(&l, &opts, &g, &err) == SFC_INVALID_ARGUMENT,
        "unknown source");
}

static void layouts(void) {
  sfc_layout l;
  sfc_error err;
  CHECK_STATUS(sfc_layout_resolve(NULL, NULL, NULL, NULL, &l, &err), SFC_OK,
               err);
  CHECK(!strcmp(sfc_layout_preset_name(&l), "default"), "default");
  for (size_t i = 0; i < sfc_preset_count(); i++) {
    const char *name, *spec;
    int64_t epoch;
    sfc_preset_at(i, &name, &spec, &epoch);
    char epoch_text[24];
    snprintf(epoch_text, sizeof epoch_text, "%lld", (long long)epoch);
    CHECK_STATUS(sfc_layout_resolve(NULL, NULL, spec, epoch_text, &l, &err),
                 SFC_OK, err);
    CHECK(!strcmp(sfc_layout_preset_name(&l), name), "%s", name);
    /* One ms off the preset's epoch is another layout. */
    snprintf(epoch_text, sizeof epoch_text, "%lld", (long long)epoch - 1);
    CHECK_STATUS(sfc_layout_resolve(NULL, NULL, spec, epoch_text, &l, &err),
                 SFC_OK, err);
    CHECK(sfc_layout_preset_name(&l) == NULL, "%s - 1 ms", name);
  }
  CHECK(sfc_layout_resolve(NULL, "twitter", NULL, "0", &l, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "epoch"),
        "%s", err.message);
  /* A layout object is taken alone. */
  sfc_layout held, got;
  sfc_layout_preset("sonyflake", &held, NULL);
  CHECK_STATUS(sfc_layout_resolve(&held, NULL, NULL, NULL, &got, &err), SFC_OK,
               err);
  CHECK(!strcmp(sfc_layout_preset_name(&got), "sonyflake"), "as it is");
  CHECK(sfc_layout_resolve(&held, NULL, NULL, "0", &got, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "alone"),
        "%s", err.message);
  CHECK(sfc_layout_resolve(&held, "twitter", NULL, NULL, &got, &err) ==
            SFC_INVALID_ARGUMENT,
        "with a preset");
}

static void tables(void) {
  sfc_layout l;
  sfc_layout_preset("discord", &l, NULL);
  char buf[SFC_SPEC_MAX];
  sfc_value v;
  size_t i = 0;
  for (; sfc_layout_fact_at(i); i++)
    CHECK_STATUS(sfc_layout_fact(&l, i, &v, buf, sizeof buf), SFC_OK,
                 (sfc_error){0});
  CHECK(sfc_layout_fact(&l, i, &v, buf, sizeof buf) == SFC_INVALID_ARGUMENT,
        "past the end");
  CHECK(sfc_layout_fact(&l, 9, &v, buf, sizeof buf) == SFC_OK &&
            v.type == SFC_TYPE_LIST && v.u == l.field_count,
        "fields");
  CHECK(sfc_field_fact(&l.fields[2], 1, &v) == SFC_OK &&
            !strcmp(v.text, "node"),
        "worker is a node field");
  sfc_layout_fact(&l, 8, &v, buf, sizeof buf);
  CHECK(v.type == SFC_TYPE_UINT && v.u == UINT64_MAX, "max_id of 64 bits");

  const sfc_status_info *s;
  size_t errors = 0;
  for (i = 0; (s = sfc_status_at(i)); i++) {
    CHECK(s->status == (sfc_status)i &&
              !strcmp(s->name, sfc_status_name(s->status)),
          "%zu", i);
    errors += (size_t)s->is_error;
  }
  CHECK(i == SFC_STATUS_COUNT && errors == SFC_STATUS_COUNT - 2, "%zu", errors);
  CHECK(!strcmp(sfc_status_name(SFC_OUT_OF_MEMORY), "OutOfMemory"), "OOM");
}

static void closed(void) {
  sfc_error err;
  uint64_t id = 7, ids[4];
  size_t filled = 9;
  int64_t wait = 0;
  CHECK(sfc_next(NULL, &id, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "closed") && id == 7,
        "%s", err.message);
  CHECK(sfc_next_ids(NULL, ids, 4, &filled, &err) == SFC_INVALID_ARGUMENT &&
            filled == 0,
        "next_ids");
  CHECK(sfc_next_now(NULL, &id, &wait, &err) == SFC_INVALID_ARGUMENT,
        "next_now");
  CHECK(sfc_next_at(NULL, 0, &id, &wait, &err) == SFC_INVALID_ARGUMENT,
        "next_at");
  filled = 9;
  CHECK(sfc_next_ids_now(NULL, ids, 4, &filled, &wait, &err) ==
                SFC_INVALID_ARGUMENT &&
            filled == 0,
        "next_ids_now");
  CHECK(sfc_next_ids_at(NULL, 0, ids, 4, NULL, &wait, &err) ==
            SFC_INVALID_ARGUMENT,
        "next_ids_at");
  CHECK(sfc_generator_check(NULL, NULL) == SFC_INVALID_ARGUMENT, "check");
}

/* A generator says once, at creation, that its layout's time runs out
 * within ten years; a longer-lived one says nothing of it. */
static void layout_ending(void) {
  sfc_error err;
  sfc_options opts;
  sfc_node_value node = {"worker", 9, SFC_SOURCE_EXPLICIT};
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, &node, 1);
  set_bool(&opts, SFC_OPTION_GUARD, false);
  /* 2^28 s is 8.5 years: from an epoch a year ago, it ends in 7.5. */
  const int64_t epoch = ((int64_t)time(NULL) - 365 * 86400) * 1000;
  const sfc_layout soon = check_layout("time:28@1s,worker:4,seq:13", epoch);
  sfc_generator *g = NULL;
  CHECK_STATUS(sfc_generator_new(&soon, &opts, &g, &err), SFC_OK, err);
  const char *text = g ? check_warning(g, "LayoutEnding") : NULL;
  CHECK(text && strstr(text, "runs out on") && strstr(text, "in 7.5 years"),
        "ends within ten years: %s", text ? text : "(no warning)");
  sfc_generator_free(g);
  const sfc_layout later = check_default_layout();
  g = NULL;
  CHECK_STATUS(sfc_generator_new(&later, &opts, &g, &err), SFC_OK, err);
  CHECK(g && !check_warning(g, "LayoutEnding") && check_warning(g, "Unguarded"),
        "the default preset lasts past ten years");
  sfc_generator_free(g);
}

/* Messages in the caller's terms: options of two words or more, whole
 * words only. */
static void terms(void) {
  static const struct {
    const char *text;
    sfc_terms terms;
    const char *want;
  } cases[] = {
      {"needs a state_dir: x", SFC_TERMS_FLAG, "needs a --state-dir: x"},
      {"needs a state_dir: x", SFC_TERMS_CAMEL, "needs a stateDir: x"},
      {"needs a state_dir: x", SFC_TERMS_SNAKE, "needs a state_dir: x"},
      {"options: rollback, max_wait, guard, lease_key", SFC_TERMS_CAMEL,
       "options: rollback, maxWait, guard, leaseKey"},
      {"turn the guard off (rollback)", SFC_TERMS_FLAG,
       "turn the guard off (rollback)"},
      {"my_state_dir, state_dirs, state_dir_x", SFC_TERMS_FLAG,
       "my_state_dir, state_dirs, state_dir_x"},
      {"'state_dir'", SFC_TERMS_FLAG, "'--state-dir'"},
      {"", SFC_TERMS_CAMEL, ""},
  };
  char out[128];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    size_t n =
        sfc_text_in_terms(cases[i].text, cases[i].terms, out, sizeof out);
    CHECK(strcmp(out, cases[i].want) == 0 && n == strlen(cases[i].want),
          "'%s' in terms %d: '%s' (%zu)", cases[i].text, (int)cases[i].terms,
          out, n);
  }
  /* Cut like snprintf: the length it needed, the text cut at cap. */
  char small[8];
  size_t n =
      sfc_text_in_terms("a state_dir", SFC_TERMS_FLAG, small, sizeof small);
  CHECK(n == strlen("a --state-dir") && strcmp(small, "a --sta") == 0,
        "cut: '%s' (%zu)", small, n);
}

/* The opaque options and stats: set and read by id, the stats' ids the
 * table's rows, storage never initialised refused. */
static void opaque(void) {
  sfc_options opts;
  sfc_error err;
  sfc_options_init(&opts);
  sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, "1.5s", 4, 0};
  CHECK_STATUS(sfc_options_set_id(&opts, SFC_OPTION_MAX_DRIFT, &v, &err),
               SFC_OK, err);
  CHECK(get_ms(&opts, SFC_OPTION_MAX_DRIFT) == 1500, "1.5s by id");
  v.text = "soon";
  v.len = 4;
  CHECK(sfc_options_set_id(&opts, SFC_OPTION_MAX_DRIFT, &v, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "max_drift"),
        "named as the table does: %s", err.message);
  CHECK(sfc_options_set_id(&opts, (sfc_option)99, &v, &err) ==
            SFC_INVALID_ARGUMENT,
        "an id past the table");
  CHECK(sfc_options_get(&opts, (sfc_option)99, &v) == SFC_INVALID_ARGUMENT,
        "get past the table");
  CHECK(sfc_options_get(&opts, SFC_OPTION_MAX_WAIT, &v) == SFC_OK &&
            v.type == SFC_TYPE_NONE,
        "an unset duration reads as none");
  CHECK(!strcmp(get_text(&opts, SFC_OPTION_TIME_SOURCE), "wall"),
        "a choice reads as its name");
  CHECK(get_bool(&opts, SFC_OPTION_GUARD) &&
            !get_bool(&opts, SFC_OPTION_RANDOM_START),
        "flags as the table means them");
  CHECK(get_text(&opts, SFC_OPTION_STATE_DIR) == NULL, "no state_dir");

  sfc_layout l;
  sfc_layout_preset("twitter", &l, NULL);
  sfc_node_value node[] = {{"datacenter", 2, SFC_SOURCE_EXPLICIT},
                           {"worker", 5, SFC_SOURCE_EXPLICIT}};
  sfc_options_set_nodes(&opts, node, 2);
  set_bool(&opts, SFC_OPTION_GUARD, false);
  set_rollback(&opts, SFC_ROLLBACK_BORROW);
  sfc_generator *g = NULL;
  CHECK_STATUS(sfc_generator_new(&l, &opts, &g, &err), SFC_OK, err);
  if (g) {
    uint64_t id;
    sfc_next(g, &id, &err);
    sfc_next(g, &id, &err);
    sfc_stats s;
    sfc_generator_stats(g, &s);
    const sfc_fact_info *f;
    for (size_t i = 0; (f = sfc_stats_fact_at(i)); i++) {
      sfc_value a;
      sfc_stats_fact(&s, i, &a);
      CHECK(a.type == f->type || a.type == SFC_TYPE_NONE, "%s", f->name);
    }
    CHECK(!strcmp(sfc_stats_fact_at(SFC_STAT_NODE_SWITCHES)->name,
                  "node_switches") &&
              !strcmp(sfc_stats_fact_at(SFC_STAT_GUARD)->name, "guard"),
          "the ids are the rows"); /* all of them: test_vectors */
    CHECK(sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED) == 2, "two issued");
    CHECK(sfc_stats_int(&s, SFC_STAT_MAX_DRIFT_MS) == 1500, "the drift set");
    CHECK(!strcmp(sfc_stats_text(&s, SFC_STAT_ROLLBACK), "borrow"), "borrow");
    CHECK(!strcmp(sfc_stats_text(&s, SFC_STAT_GUARD), "off"), "guard off");
    CHECK(sfc_stats_uint(&s, SFC_STAT_LAST_TIME_MS) == 0 &&
              sfc_stats_text(&s, SFC_STAT_IDS_ISSUED) == NULL &&
              sfc_stats_int(&s, (sfc_stat)99) == 0,
          "another type or id: nothing");
    CHECK(stats_node(&s, 0) == 2 && stats_node(&s, 1) == 5, "node values");
    sfc_generator_free(g);
  }

  sfc_options raw;
  memset(&raw, 0, sizeof raw);
  CHECK(sfc_generator_new(&l, &raw, &g, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "sfc_options_init"),
        "storage never initialised: %s", err.message);
  CHECK(!sfc_lease_wanted(&l, &raw), "nor read for a lease");
}

int main(void) {
  names();
  opaque();
  terms();
  layout_ending();
  values();
  node_values();
  layouts();
  tables();
  closed();
  return check_summary();
}
