/* The binding kit: node lists as every host splits them, the growing sink,
 * JSON text escaped the one way, and the walks a host reaches through its
 * primitives (kit_host.h records what they were asked to make). */
#include "check.h"

#include <string.h>

#include "kit_host.h"
#include "lease_of.h"
#include "snowflake_c_kit.h"

static void node_lists(void) {
  sfk_node_list list;
  sfc_error err;
  CHECK_STATUS(
      sfk_node_list_split(&list, "datacenter=1,,worker=3,", "--node", &err),
      SFC_OK, err);
  CHECK(list.count == 2, "two pairs, empty items skipped: %zu", list.count);
  CHECK_STATUS(sfk_node_list_values(&list, &err), SFC_OK, err);
  CHECK(strcmp(list.values[0].name, "datacenter") == 0 &&
            list.values[0].value == 1 && list.values[1].value == 3,
        "names and values in order");

  CHECK_STATUS(
      sfk_node_list_split(&list, "worker=3,oops", "snowflake_c.node", &err),
      SFC_INVALID_ARGUMENT, err);
  CHECK(strstr(err.message, "snowflake_c.node 'oops' is not NAME=VALUE"),
        "the item and the caller's name: %s", err.message);
  CHECK_STATUS(sfk_node_list_split(&list, "=3", "--node", &err),
               SFC_INVALID_ARGUMENT, err);

  char many[200] = "";
  for (int i = 0; i <= SFC_MAX_FIELDS; i++)
    snprintf(many + strlen(many), sizeof many - strlen(many), "%sf%d=1",
             i ? "," : "", i);
  CHECK_STATUS(sfk_node_list_split(&list, many, "--node", &err),
               SFC_INVALID_ARGUMENT, err);

  char long_text[SFK_NODE_TEXT_MAX + 8];
  memset(long_text, 'a', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  CHECK_STATUS(sfk_node_list_split(&list, long_text, "--node", &err),
               SFC_INVALID_ARGUMENT, err);
  CHECK(strstr(err.message, "at most"), "says the limit: %s", err.message);

  CHECK_STATUS(sfk_node_list_split(&list, "worker=-1", "--node", &err), SFC_OK,
               err);
  CHECK_STATUS(sfk_node_list_values(&list, &err), SFC_INVALID_ARGUMENT, err);
}

static void json_text(void) {
  sfk_buffer buf = {0};
  sfk_sink out = sfk_buffer_sink(&buf);
  sfk_json_text(&out, "a\"b\\c\n\x01z");
  CHECK(buf.data && strcmp(buf.data, "\"a\\\"b\\\\c\\u000a\\u0001z\"") == 0,
        "escaped: %s", buf.data);
  /* Grows past its first allocation, byte for byte. */
  for (int i = 0; i < 1000; i++)
    out.write(out.ctx, "0123456789", 10);
  size_t head = buf.len - 10000;
  CHECK(buf.len > 10000 &&
            memcmp(buf.data + head + 9990, "0123456789", 10) == 0,
        "grown to %zu bytes", buf.len);
  CHECK(!buf.failed && buf.data[buf.len] == '\0', "NUL-terminated");
  sfk_buffer_free(&buf);

  sfc_value id = {SFC_TYPE_UINT, 0, 18446744073709551615u, 0, NULL, 0, 0};
  sfk_json_value(&out, &id, sfk_is_id("max_id"));
  sfk_json_value(&out, &id, sfk_is_id("idle"));
  CHECK(strcmp(buf.data, "\"18446744073709551615\"18446744073709551615") == 0,
        "an ID is a string, another number is not: %s", buf.data);
  sfk_buffer_free(&buf);

  sfc_error err = {SFC_CLOCK_MOVED_BACKWARDS, "behind \"by\" 5 ms"};
  sfk_json_error(&out, &err);
  CHECK(strcmp(buf.data, "{\"error\":{\"kind\":\"ClockMovedBackwards\","
                         "\"message\":\"behind \\\"by\\\" 5 ms\"}}") == 0,
        "the error object: %s", buf.data);
  sfk_buffer_free(&buf);
}

static bool starts(const char *text, const char *prefix) {
  return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* The value rendered, then freed. */
static const char *rendered(sfk_obj o) {
  static sfk_buffer buf;
  sfk_sink out = sfk_buffer_sink(&buf);
  sfk_buffer_free(&buf);
  render((node *)o, &out);
  node_free((node *)o);
  return buf.data;
}

static void layout_out(void) {
  test_host t = {0};
  sfk_host h = test_host_of(&t);
  sfc_layout l;
  sfc_error err;
  sfk_obj o;
  CHECK_STATUS(sfc_layout_resolve(NULL, "twitter", NULL, NULL, &l, &err),
               SFC_OK, err);
  CHECK(sfk_layout_out(&h, &l, &o) == 0 && t.live == 1, "made, %d live",
        t.live);
  const char *want =
      "{:name=\"twitter\",:spec=\"time:41@1ms,datacenter:5,worker:5,seq:12\","
      ":epoch_ms=1288834974657,:unit_us=1000,:total_bits=63,"
      ":ids_per_second=4096000,:node_capacity=1024,"
      ":time_end_ms=3487858230209,:max_id=\"9223372036854775807\",:fields=["
      "{:name=\"time\",:kind=\"time\",:bits=41,:shift=22,:max="
      "\"2199023255551\"},"
      "{:name=\"datacenter\",:kind=\"node\",:bits=5,:shift=17,:max=\"31\"},"
      "{:name=\"worker\",:kind=\"node\",:bits=5,:shift=12,:max=\"31\"},"
      "{:name=\"seq\",:kind=\"seq\",:bits=12,:shift=0,:max=\"4095\"}]}";
  const char *got = rendered(o);
  CHECK(strcmp(got, want) == 0, "the facts in order:\n%s\n%s", got, want);

  /* Whichever make fails, the walk says so and leaves nothing behind. */
  int total = t.made;
  for (int at = 1; at <= total; at++) {
    test_host f = {.fail_at = at};
    sfk_host fh = test_host_of(&f);
    CHECK(sfk_layout_out(&fh, &l, &o) != 0 && f.live == 0,
          "make %d of %d failed: %d live", at, total, f.live);
  }
}

static void tables_out(void) {
  test_host t = {0};
  sfk_host h = test_host_of(&t);
  sfk_obj o;
  CHECK(sfk_preset_names_out(&h, &o) == 0, "presets");
  CHECK(starts(rendered(o), "[\"default\",\"twitter\",\"discord\","),
        "the presets' names in order");
  CHECK(sfk_option_names_out(&h, &o) == 0, "options");
  const char *names = rendered(o);
  CHECK(names[0] == '[' && strstr(names, "\"max_wait\"") &&
            strstr(names, "\"guard\""),
        "the options' names: %s", names);
  CHECK(sfk_statuses_out(&h, &o) == 0, "statuses");
  const char *statuses = rendered(o);
  CHECK(starts(statuses, "[{:status=0,:name=\"Ok\",:message=\"") &&
            strstr(statuses, "{:status=2,:name=\"InvalidArgument\","
                             ":message=\"") &&
            strstr(statuses, ",:is_error=true}"),
        "the statuses' rows: %s", statuses);
  CHECK(sfk_options_out(&h, &o) == 0, "options' rows");
  const char *options = rendered(o);
  CHECK(starts(options, "[{:name=\"rollback\",:type=\"choice\",:default=\""
                        "default\",:min=0,:max=0,:choices=[\"default\","
                        "\"error\",") &&
            strstr(options, "{:name=\"state_dir\",:type=\"path\",") &&
            strstr(options, ",:choices=null,:doc=\""),
        "the options' rows: %s", options);
  CHECK(sfk_presets_out(&h, &o) == 0, "presets' rows");
  const char *presets = rendered(o);
  CHECK(starts(presets, "[{:name=\"default\",:spec=\"time:41@1ms,clock:3,"
                        "worker:7,seq:12\",:epoch_ms=1704067200000},"),
        "the presets' rows: %s", presets);
  /* Whichever make fails, the walk says so and leaves nothing behind. */
  int (*walks[])(const sfk_host *, sfk_obj *) = {
      sfk_statuses_out, sfk_options_out, sfk_presets_out};
  for (size_t w = 0; w < sizeof walks / sizeof walks[0]; w++) {
    test_host c = {0};
    sfk_host ch = test_host_of(&c);
    CHECK(walks[w](&ch, &o) == 0, "walk %zu", w);
    node_free((node *)o);
    for (int at = 1; at <= c.made; at++) {
      test_host f = {.fail_at = at};
      sfk_host fh = test_host_of(&f);
      CHECK(walks[w](&fh, &o) != 0 && f.live == 0,
            "walk %zu, make %d of %d failed: %d live", w, at, c.made, f.live);
    }
  }
  uint64_t ids[] = {1, 18446744073709551615u};
  CHECK(sfk_ids_out(&h, ids, 2, &o) == 0 &&
            strcmp(rendered(o), "[\"1\",\"18446744073709551615\"]") == 0,
        "IDs unsigned");

  /* A lease that failed once, before any value: every row by name. */
  sfc_lease *lease = failed_lease(15000, "no \"db\"");
  if (!lease) return;
  sfc_lease_stats ls;
  sfc_lease_stats_get(lease, &ls);
  CHECK(sfk_lease_stats_out(&h, &ls, &o) == 0, "lease stats");
  const char *text = rendered(o);
  CHECK(strcmp(text, "{:state=\"acquiring\",:field=\"worker\",:value=-1,"
                     ":expires_ms=0,:horizon_ms=0,:renewals=\"0\","
                     ":failures=\"1\",:error=\"no \\\"db\\\"\","
                     ":duration_ms=15000}") == 0,
        "lease stats: %s", text);
  sfc_lease_free(lease); /* owns the field's name */
}

/* Host arguments: a map of options as a script writes them. */
static node *arg_map(test_host *t) {
  sfk_obj o;
  th_map(t, &o);
  return (node *)o;
}

/* map[key] = `text`, or the integer `i` when `text` is NULL. */
static void arg_put(test_host *t, node *map, const char *key, const char *text,
                    int64_t i) {
  sfc_value v = {text ? SFC_TYPE_TEXT : SFC_TYPE_INT,
                 i,
                 0,
                 0,
                 text,
                 text ? strlen(text) : 0,
                 0};
  sfk_obj o;
  th_out(t, &v, &o);
  th_put(t, map, key, 0, o);
}

static void generator_in(void) {
  test_host t = {0};
  sfk_host h = test_host_of(&t);
  sfc_error err;
  sfc_generator *gen = NULL;
  node *opts = arg_map(&t), *nodes = arg_map(&t);
  sfc_value off = {SFC_TYPE_BOOL, 0, 0, 0, NULL, 0, 0};
  sfk_obj guard;
  arg_put(&t, opts, "layout", "time:41@1ms,clock:3,worker:7,seq:12", 0);
  arg_put(&t, opts, "epoch", NULL, check_run_epoch());
  arg_put(&t, nodes, "worker", NULL, 77);
  th_put(&t, opts, "node", 0, nodes);
  th_out(&t, &off, &guard);
  th_put(&t, opts, "guard", 0, guard);
  sfk_obj args = opts;
  CHECK_STATUS(sfk_generator_new(&h, &args, NULL, &gen, &err), SFC_OK, err);
  CHECK(t.warns == 1 && strstr(t.told, "Unguarded: "), "told: %s", t.told);

  sfk_obj o;
  CHECK(gen && sfk_warnings_out(&h, gen, &o) == 0, "warnings");
  const char *w = rendered(o);
  CHECK(starts(w, "[[\"Unguarded\",\"node value worker=77 is"),
        "[[kind, text]]: %s", w);

  /* Told once per process: a second generator's is not told again, and a
   * warning the host raised is told the next time. */
  CHECK(sfk_tell(&h, gen, &err) == 0 && t.warns == 1, "told once");
  sfk_told_forget(sfc_generator_warning_at(gen, 0, &w) ? w : "");
  t.refuse_warn = 1;
  CHECK(sfk_tell(&h, gen, &err) != 0 && t.warns == 2, "the host raised");
  t.refuse_warn = 0;
  CHECK(sfk_tell(&h, gen, &err) == 0 && t.warns == 3, "told after all");

  uint64_t id = 0, ids[100];
  size_t filled = 0;
  CHECK_STATUS(sfk_next_id(&h, &gen, &id, &err), SFC_OK, err);
  CHECK_STATUS(sfk_next_ids(&h, &gen, ids, 100, &filled, &err), SFC_OK, err);
  CHECK(filled == 100 && ids[0] > id && ids[99] > ids[0], "100 IDs after %llu",
        (unsigned long long)id);
  sfc_stats s;
  sfc_generator_stats(gen, &s);
  CHECK(sfk_stats_out(&h, &s, &o) == 0, "stats");
  const char *stats = rendered(o);
  CHECK(stats[0] == '{' && strstr(stats, ":node={\"worker\"=\"77\"}") &&
            starts(stats, "{:ids_issued=\"101\",:waits="),
        "stats by Symbol, the node map by data keys: %s", stats);
  sfc_generator_free(gen);
  CHECK(sfk_ids_alloc(SFK_BATCH_MAX + 1, &err) == NULL &&
            strstr(err.message, "a batch takes at most 16777216 IDs"),
        "a batch too large: %s", err.message);
  node_free(opts);
}

/* The message sfk_generator_new refuses (first, opts) with; opts freed. */
static const char *refusal(test_host *t, sfk_obj first, node *opts) {
  static sfc_error err;
  sfk_host h = test_host_of(t);
  sfc_generator *gen = NULL;
  sfk_obj args = opts;
  sfc_status st = sfk_generator_new(&h, &first, &args, &gen, &err);
  node_free(opts);
  return st == SFC_INVALID_ARGUMENT && !gen ? err.message : "(not refused)";
}

static void generator_refused(void) {
  test_host t = {0};
  sfk_host h = test_host_of(&t);
  sfc_error err;
  node *opts = arg_map(&t), *nodes = arg_map(&t);
  sfk_obj first;
  th_out(&t, &(sfc_value){SFC_TYPE_TEXT, 0, 0, 0, "twitter", 7, 0}, &first);
  arg_put(&t, nodes, "worker", NULL, -999); /* an object of the host */
  th_put(&t, opts, "node", 0, nodes);
  const char *why = refusal(&t, first, opts);
  CHECK(strcmp(why, "worker cannot be a Thing") == 0, "%s", why);
  opts = arg_map(&t);
  arg_put(&t, opts, "preset", "discord", 0);
  why = refusal(&t, first, opts);
  CHECK(strcmp(why, "preset is given twice") == 0, "%s", why);
  opts = arg_map(&t);
  arg_put(&t, opts, "max_wiat", NULL, 5);
  why = refusal(&t, first, opts);
  CHECK(strstr(why, "max_wiat"), "the core's own: %s", why);
  opts = arg_map(&t);
  arg_put(&t, opts, "max_wiat", NULL, -999); /* an object of the host */
  why = refusal(&t, first, opts);
  CHECK(strstr(why, "unknown option 'max_wiat'"), "a typo first: %s", why);
  node_free(first);

  sfk_named fields = {0};
  opts = arg_map(&t);
  arg_put(&t, opts, "worker", "12", 0);
  arg_put(&t, opts, "seq", NULL, -1);
  CHECK(sfk_fields_read(&h, opts, &fields, &err) && fields.count == 2 &&
            strcmp(fields.value[0].name, "worker") == 0 &&
            fields.value[0].value == 12 && fields.value[1].value == -1,
        "field values by name, text or integers");
  arg_put(&t, opts, "clock", "9223372036854775808", 0);
  CHECK(!sfk_fields_read(&h, opts, &fields, &err) &&
            strstr(err.message, "field 'clock' is above 2^63 - 1"),
        "%s", err.message);
  sfk_named_free(&fields);
  node_free(opts);
}

/* Row `row` of the kit's calls on arguments of the test host (text, or
 * an integer when `text` is NULL; -999 the host's Layout, -998 none), the
 * result rendered, or the refusal's message after "!". */
static const char *called(test_host *t, size_t row, size_t n,
                          const char *const *text, const int64_t *i) {
  static char said[SFC_MESSAGE_MAX + 1];
  sfk_host h = test_host_of(t);
  sfk_obj objs[SFK_CALL_ARGS] = {NULL}, out = NULL;
  sfc_value values[SFK_CALL_ARGS];
  sfc_error err;
  memset(values, 0, sizeof values);
  for (size_t k = 0; k < n; k++) {
    sfc_value v = {text[k] ? SFC_TYPE_TEXT : SFC_TYPE_INT, i[k], 0, 0, text[k],
                   text[k] ? strlen(text[k]) : 0,          0};
    if (th_out(t, &v, &objs[k]) != 0) return "!no argument";
    th_in(t, objs[k], &values[k], &err);
    if (i[k] == -999) values[k].type = SFK_TYPE_OBJECT;
    if (i[k] == -998) values[k].type = SFC_TYPE_NONE;
  }
  int failed = sfk_call_run(&h, row, objs, values, n, &out, &err);
  for (size_t k = 0; k < n; k++)
    th_drop(t, objs[k]);
  if (!failed) t->live--; /* rendered, then freed */
  if (!failed) return rendered(out);
  snprintf(said, sizeof said, "!%s", err.message);
  return said;
}

static void calls(void) {
  sfc_layout l;
  sfc_error err;
  test_host t = {.layout = &l};
  CHECK_STATUS(sfc_layout_resolve(NULL, "twitter", NULL, NULL, &l, &err),
               SFC_OK, err);
  struct {
    size_t row, n;
    const char *text[3];
    int64_t i[3];
    const char *want;
  } cases[] = {
      {SFK_CALL_FORMAT_ID, 2, {NULL, "hex"}, {255}, "\"00000000000000ff\""},
      {SFK_CALL_FORMAT_ID, 2, {"255", "base62"}, {0}, "\"00000000047\""},
      {SFK_CALL_FORMAT_ID, 2, {NULL, "hex"}, {-1}, "!ID -1 is negative"},
      {SFK_CALL_FORMAT_ID, 2, {NULL, "hexa"}, {1}, "!unknown encoding"},
      {SFK_CALL_PARSE_ID, 2, {"ff", "hex"}, {0}, "\"255\""},
      {SFK_CALL_PARSE_ID,
       2,
       {NULL, "hex"},
       {12},
       "!an encoded ID must be text, not a Thing"},
      {SFK_CALL_PARSE_ID,
       2,
       {"fg", "hex"},
       {0},
       "!hex ID 'fg' has 'g' at position 1"},
      {SFK_CALL_FORMAT_TIME, 1, {NULL}, {0}, "\"1970-01-01T00:00:00.000Z\""},
      {SFK_CALL_PARSE_TIME, 1, {"1970-01-01T00:00:01Z"}, {0}, "1000"},
      {SFK_CALL_PARSE_TIME,
       1,
       {"soon"},
       {0},
       "!time 'soon' is neither Unix milliseconds nor ISO-8601 UTC"},
      {SFK_CALL_UUID7,
       1,
       {"0189e8b2-7b34-7cc3-98c4-dc0c0c07398f"},
       {0},
       "[\"0189e8b2-7b34-7cc3-98c4-dc0c0c07398f\",1691826158388,3267,"
       "\"1784793296645077391\",\"{"},
      {SFK_CALL_LAYOUT_FACTS, 1, {NULL}, {-999}, "{:name=\"twitter\","},
      {SFK_CALL_LAYOUT_FACTS, 1, {NULL}, {7}, "!layout must be a Layout"},
      {SFK_CALL_RANGE,
       3,
       {NULL, NULL, NULL},
       {-998, 0, 1},
       "!no layout given: name the one the IDs were made with"},
      {SFK_CALL_RANGE,
       3,
       {NULL, NULL, NULL},
       {-999, 1288834974657, 1288834974658},
       "[\"0\",\"4194303\"]"},
      {SFK_CALL_RANGE,
       3,
       {NULL, NULL, "x"},
       {-999, 0, 0},
       "!end must be an integer, not a Thing"},
      {SFK_CALL_PARTS_JSON,
       2,
       {NULL, NULL},
       {-999, 4194304},
       "\"{\\\"id\\\":\\\"4194304\\\",\\\"time_ms\\\":1288834974658,"},
      {SFK_CALL_PARTS_TIME,
       2,
       {NULL, NULL},
       {-999, 4194304},
       "\"2010-11-04T01:42:54.658Z\""},
      {SFK_CALL_ENCODING_NUMBER, 1, {"base62"}, {0}, "5"},
      {SFK_CALL_PRESET_NAMES, 0, {NULL}, {0}, "[\"default\",\"twitter\","},
      {SFK_CALL_STATUSES, 0, {NULL}, {0}, "[{:status=0,:name=\"Ok\","},
      {SFK_CALL_ENCODING_NUMBER, 1, {"base62 "}, {0}, "!unknown encoding"},
      {SFK_CALL_ENCODE,
       3,
       {NULL, NULL, NULL},
       {-999, 0, 0},
       "!field values must be a map by name, not a Thing"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const char *got =
        called(&t, cases[k].row, cases[k].n, cases[k].text, cases[k].i);
    CHECK(starts(got, cases[k].want), "%s, case %zu: %s (wanted %s…)",
          sfk_call_at(cases[k].row)->name, k, got, cases[k].want);
  }
  CHECK(t.live == 0, "%d values left live", t.live);
  CHECK(sfk_call_at(SFK_CALL_COUNT) == NULL &&
            strcmp(sfk_call_at(SFK_CALL_ENCODING_NUMBER)->name,
                   "encoding_number") == 0,
        "the rows in their order");

  /* Whichever make fails, the call says so and leaves nothing behind. */
  const char *uuid[] = {"0189e8b2-7b34-7cc3-98c4-dc0c0c07398f"};
  const int64_t none[] = {0};
  for (int at = 1; at <= 6; at++) {
    test_host f = {.fail_at = at + 1}; /* the argument is make 1 */
    CHECK(called(&f, SFK_CALL_UUID7, 1, uuid, none)[0] == '!' && f.live == 0,
          "make %d failed: %d live", at, f.live);
  }
}

int main(void) {
  node_lists();
  json_text();
  layout_out();
  tables_out();
  generator_in();
  generator_refused();
  calls();
  return check_summary();
}
