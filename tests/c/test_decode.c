/* Properties of the value API beyond the shared vectors: round trips over
 * random IDs, fixed status numbers, parsing edge cases. */
#include "check.h"

#include <math.h>

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_random(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static sfc_status parse_dec(const char *text, uint64_t *id, sfc_error *err) {
  return sfc_id_parse(text, strlen(text), SFC_ENCODING_DEC, id, err);
}

/* The duration option `name` set from seconds + nanos, as a binding's
 * duration type gives it: its ms, as sfc_options holds them. */
static int64_t duration_ms(const sfc_options *o, const char *name) {
  const sfc_option_info *info = sfc_option_find(name, strlen(name));
  return get_ms(o, info ? info->option : SFC_OPTION_MAX_WAIT);
}

static sfc_status set_value(const char *name, const sfc_value *v, int64_t *ms,
                            sfc_error *err) {
  sfc_options o;
  sfc_options_init(&o);
  sfc_status st = sfc_options_set(&o, name, strlen(name), v, err);
  if (st == SFC_OK) *ms = duration_ms(&o, name);
  return st;
}

static sfc_status set_duration(const char *name, int64_t seconds, int64_t nanos,
                               int64_t *ms, sfc_error *err) {
  sfc_value v = {SFC_TYPE_DURATION, seconds, 0, 0, NULL, 0, nanos};
  return set_value(name, &v, ms, err);
}

static sfc_status set_duration_double(const char *name, double d, int64_t *ms,
                                      sfc_error *err) {
  sfc_value v = {SFC_TYPE_DOUBLE, 0, 0, d, NULL, 0, 0};
  return set_value(name, &v, ms, err);
}

static void round_trips(const sfc_layout *l, const char *name) {
  sfc_layout_info info;
  sfc_layout_describe(l, &info);
  int bad = 0;
  for (int i = 0; i < 100000; i++) {
    uint64_t id = next_random() & info.max_id;
    sfc_parts p;
    uint64_t back = 0;
    sfc_error err;
    if (sfc_decode(l, id, &p, &err) != SFC_OK ||
        sfc_encode(l, &p, &back, &err) != SFC_OK || back != id)
      bad++;
  }
  CHECK(bad == 0, "%s: %d IDs did not survive decode+encode", name, bad);
}

/* sfc_layout_decode_rule's steps, as a binding takes them, give
 * sfc_decode's parts for every ID the layout holds, and every ID past
 * max_id is one that sfc_decode refuses. */
static void decode_rule(const sfc_layout *l, const char *name) {
  sfc_decode_rule r;
  memset(&r, 0xA5, sizeof r); /* every member written */
  sfc_layout_decode_rule(l, &r);
  sfc_layout_info info;
  sfc_layout_describe(l, &info);
  CHECK(r.max_id == info.max_id && r.field_count == l->field_count, "%s", name);
  int bad = 0, refused = 0;
  for (int i = 0; i < 20000; i++) {
    uint64_t id = next_random();
    if (i % 2) id &= r.max_id;
    if (i == 0) id = 0;
    if (i == 1) id = r.max_id;
    sfc_parts p;
    sfc_error err;
    sfc_status st = sfc_decode(l, id, &p, &err);
    if (id > r.max_id) {
      refused += st == SFC_INVALID_ARGUMENT;
      bad += st != SFC_INVALID_ARGUMENT;
      continue;
    }
    uint64_t values[SFC_MAX_FIELDS];
    for (unsigned f = 0; f < r.field_count; f++)
      values[f] = (id >> r.shift[f]) & r.mask[f];
    int64_t time_us = r.epoch_us + (int64_t)values[0] * r.unit_us;
    int same = st == SFC_OK && p.id == id && p.time_us == time_us &&
               time_us >= 0 && p.time_ms == time_us / 1000;
    for (unsigned f = 0; same && f < r.field_count; f++)
      same = p.values[f] == values[f];
    bad += !same;
  }
  CHECK(bad == 0, "%s: %d IDs where the decode rule and sfc_decode differ",
        name, bad);
  CHECK(r.max_id == UINT64_MAX || refused > 0, "%s: no ID past max_id", name);
}

/* What sfc_format_iso and sfc_parts_json write with a buffer of `cap`:
 * as snprintf, the text's length returned, what fits written and ended. */
static void check_cap(const char *full, size_t n,
                      size_t (*write)(const void *, char *, size_t),
                      const void *arg) {
  char buf[SFC_JSON_MAX + 1];
  for (size_t cap = 0; cap <= n + 1; cap++) {
    memset(buf, 'x', sizeof buf);
    size_t got = write(arg, buf, cap);
    size_t k = cap == 0 ? 0 : (n < cap ? n : cap - 1);
    CHECK(got == n && (cap == 0 ? buf[0] == 'x'
                                : memcmp(buf, full, k) == 0 && buf[k] == '\0'),
          "cap %zu of %s: returned %zu", cap, full, got);
  }
}

static size_t write_iso(const void *ms, char *buf, size_t cap) {
  return sfc_format_iso(*(const int64_t *)ms, buf, cap);
}

/* ISO-8601 text against the C library's calendar (gmtime), from year
 * -292,000,000 to +292,000,000; expanded years from 10000 on. */
static void iso_against_gmtime(void) {
#if !defined(_WIN32)
  static const int64_t edges[] = {0,
                                  -1,
                                  1,
                                  253402300799999,
                                  253402300800000,
                                  -62167219200000,
                                  -62167219200001,
                                  -62135596800000,
                                  INT64_C(9223372036854775) * 1000,
                                  -INT64_C(9223372036854775) * 1000,
                                  951782400000,
                                  4107542400000};
  int bad = 0;
  for (int i = 0; i < 200000 && bad < 5; i++) {
    int64_t ms = i < (int)(sizeof edges / sizeof *edges)
                     ? edges[i]
                     : (int64_t)(next_random() % UINT64_C(18446744073709550)) -
                           INT64_C(9223372036854775);
    if (i >= (int)(sizeof edges / sizeof *edges) && i % 2)
      ms %= 400000000000000;
    time_t secs = (time_t)(ms / 1000 - (ms % 1000 < 0));
    int frac = (int)(ms - (int64_t)secs * 1000);
    struct tm tm;
    if (!gmtime_r(&secs, &tm)) continue;
    long long y = (long long)tm.tm_year + 1900;
    char want[64], got[SFC_ISO_MAX];
    if (y >= 0 && y <= 9999)
      snprintf(want, sizeof want, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", y,
               tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
               frac);
    else
      snprintf(want, sizeof want, "%c%06lld-%02d-%02dT%02d:%02d:%02d.%03dZ",
               y < 0 ? '-' : '+', y < 0 ? -y : y, tm.tm_mon + 1, tm.tm_mday,
               tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
    size_t n = sfc_format_iso(ms, got, sizeof got);
    if (n != strlen(want) || strcmp(got, want) != 0) {
      bad++;
      CHECK(false, "ms %lld: %s, wanted %s", (long long)ms, got, want);
    }
    if (i < (int)(sizeof edges / sizeof *edges))
      check_cap(want, strlen(want), write_iso, &ms);
  }
  CHECK(bad == 0, "%d times formatted unlike gmtime", bad);
#endif
}

typedef struct json_case {
  const sfc_layout *layout;
  const sfc_parts *parts;
} json_case;

static size_t write_json(const void *arg, char *buf, size_t cap) {
  const json_case *c = arg;
  return sfc_parts_json(c->layout, c->parts, buf, cap);
}

/* The canonical JSON against the same text made with snprintf, for every
 * preset and a layout of sixteen fields of the longest names. */
static void json_against_printf(void) {
  sfc_layout layouts[8];
  size_t count = 0;
  sfc_error err;
  for (size_t i = 0; i < sfc_preset_count() && count < 7; i++) {
    const char *name, *spec;
    int64_t epoch;
    if (sfc_preset_at(i, &name, &spec, &epoch) == SFC_OK &&
        sfc_layout_preset(name, &layouts[count], &err) == SFC_OK)
      count++;
  }
  layouts[count++] = check_layout(
      "time:2@1s,"
      "a234567890123456789012345678901:4,b234567890123456789012345678901:4,"
      "c234567890123456789012345678901:4,d234567890123456789012345678901:4,"
      "e234567890123456789012345678901:4,f234567890123456789012345678901:4,"
      "g234567890123456789012345678901:4,h234567890123456789012345678901:4,"
      "i234567890123456789012345678901:4,j234567890123456789012345678901:4,"
      "k234567890123456789012345678901:4,l234567890123456789012345678901:4,"
      "m234567890123456789012345678901:4,n234567890123456789012345678901:4,"
      "seq:2",
      0);
  for (size_t k = 0; k < count; k++) {
    const sfc_layout *l = &layouts[k];
    for (int i = 0; i < 2000; i++) {
      uint64_t id = next_random();
      if (l->total_bits < 64) id &= (UINT64_C(1) << l->total_bits) - 1;
      if (i == 0) id = 0;
      if (i == 1)
        id = l->total_bits < 64 ? (UINT64_C(1) << l->total_bits) - 1
                                : UINT64_MAX;
      sfc_parts p;
      if (sfc_decode(l, id, &p, &err) != SFC_OK) continue;
      char iso[SFC_ISO_MAX], want[SFC_JSON_MAX + 64], got[SFC_JSON_MAX];
      sfc_format_iso(p.time_ms, iso, sizeof iso);
      int n = snprintf(want, sizeof want,
                       "{\"id\":\"%llu\",\"time_ms\":%lld,\"time\":\"%s\"",
                       (unsigned long long)p.id, (long long)p.time_ms, iso);
      for (unsigned f = 1; f < l->field_count; f++)
        n += snprintf(want + n, sizeof want - (size_t)n, ",\"%s\":%llu",
                      l->fields[f].name, (unsigned long long)p.values[f]);
      n += snprintf(want + n, sizeof want - (size_t)n, "}");
      size_t len = sfc_parts_json(l, &p, got, sizeof got);
      CHECK((size_t)n < SFC_JSON_MAX && len == (size_t)n &&
                strcmp(got, want) == 0,
            "layout %zu id %llu: %s, wanted %s", k, (unsigned long long)id, got,
            want);
      if (i < 2) {
        json_case c = {l, &p};
        check_cap(want, (size_t)n, write_json, &c);
      }
    }
  }
}

int main(void) {
  /* Status numbers are fixed forever. */
  CHECK(SFC_INVALID_LAYOUT == 1 && SFC_STATE_ERROR == 7 && SFC_WAIT == 8,
        "status numbers moved");
  CHECK(strcmp(sfc_status_name(SFC_CLOCK_MOVED_BACKWARDS),
               "ClockMovedBackwards") == 0,
        "name %s", sfc_status_name(SFC_CLOCK_MOVED_BACKWARDS));
  CHECK(strcmp(sfc_status_name((sfc_status)99), "Unknown") == 0, "unknown");
  CHECK(sfc_version_number() == SFC_VERSION_NUMBER, "header and library");

  for (size_t i = 0; i < sfc_preset_count(); i++) {
    const char *name;
    sfc_layout l;
    sfc_error err;
    sfc_preset_at(i, &name, NULL, NULL);
    CHECK_STATUS(sfc_layout_preset(name, &l, &err), SFC_OK, err);
    round_trips(&l, name);
    decode_rule(&l, name);
  }
  sfc_layout wide = check_layout("time:40@1us,a:1,clock:8,seq:15", 0);
  round_trips(&wide, "wide");
  decode_rule(&wide, "wide");
  /* All 64 bits; a field wider than a double holds; seconds; a time field
   * whose last tick ends near the year 294000. */
  sfc_layout all = check_layout("time:8@1s,node:54,seq:2", 1704067200000);
  decode_rule(&all, "64 bits");
  sfc_layout late = check_layout("time:37@60s,seq:16", 1704067200000);
  decode_rule(&late, "late");

  /* IDs from text: decimal. */
  uint64_t id;
  sfc_error err;
  CHECK_STATUS(parse_dec("18446744073709551615", &id, &err), SFC_OK, err);
  CHECK(id == UINT64_MAX, "max id");
  CHECK(parse_dec("18446744073709551616", &id, &err) == SFC_INVALID_ARGUMENT,
        "2^64 accepted");
  CHECK(parse_dec("-1", &id, &err) == SFC_INVALID_ARGUMENT, "-1");
  CHECK(parse_dec("", &id, &err) == SFC_INVALID_ARGUMENT, "empty");
  CHECK(parse_dec("12a", &id, &err) == SFC_INVALID_ARGUMENT, "12a");
  CHECK(parse_dec(" 1", &id, &err) == SFC_INVALID_ARGUMENT, "space");

  /* Text of a known length: a NUL byte is refused with its position, never
   * taken for the end ("5\0garbage" is not 5). */
  CHECK_STATUS(sfc_id_parse("1234", 2, SFC_ENCODING_DEC, &id, &err), SFC_OK,
               err);
  CHECK(id == 12, "%" PRIu64, id);
  CHECK(sfc_id_parse("5\0garbage", 9, SFC_ENCODING_DEC, &id, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "NUL") && strstr(err.message, "position 1"),
        "%s", err.message);
  CHECK(sfc_id_parse("\0"
                     "175928847299117063",
                     19, SFC_ENCODING_DEC, &id, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "position 0"),
        "%s", err.message);
  CHECK(sfc_id_parse("5\0", 2, SFC_ENCODING_DEC, &id, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "position 1"),
        "%s", err.message);
  CHECK(sfc_id_parse("", 0, SFC_ENCODING_DEC, &id, &err) ==
            SFC_INVALID_ARGUMENT,
        "empty");
  /* A space after a comma, a common habit, is named as such. */
  sfc_layout spaced;
  CHECK(sfc_layout_parse("time:41@1ms, worker:10,seq:12", 0, &spaced, &err) ==
                SFC_INVALID_LAYOUT &&
            strstr(err.message, "field 2 ' worker' has a space"),
        "%s", err.message);
  CHECK_STATUS(sfc_text_check("layout", "time:41", 7, &err), SFC_OK, err);
  CHECK(sfc_text_check("layout", "time\0:41", 8, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "layout") && strstr(err.message, "position 4"),
        "%s", err.message);

  /* Durations: rounded up to whole ms; the message names the option as
   * given. */
  int64_t dms = -1;
  CHECK_STATUS(set_duration("max_wait", 0, 1, &dms, &err), SFC_OK, err);
  CHECK(dms == 1, "%" PRId64, dms);
  /* One name per option: no "_ms" variant. */
  CHECK(set_duration("max_wait_ms", 0, 1, &dms, &err) == SFC_INVALID_ARGUMENT,
        "%s", err.message);
  CHECK(set_duration("maxWait", -1, 999500000, &dms, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "maxWait") && strstr(err.message, "-0.5 ms"),
        "%s", err.message);
  CHECK(set_duration("stateReserve", 3600, 1, &dms, &err) ==
                SFC_INVALID_ARGUMENT &&
            strstr(err.message, "stateReserve") &&
            strstr(err.message, "3600000"),
        "%s", err.message);
  CHECK(set_duration("max_wait", INT64_MAX, 999999999, &dms, &err) ==
            SFC_INVALID_ARGUMENT,
        "%s", err.message);
  CHECK(set_duration("max_wait", 0, 1000000000, &dms, &err) ==
            SFC_INVALID_ARGUMENT,
        "nanos out of range");
  /* The same rule for milliseconds carried as a double (JS, Ruby, PHP). */
  {
    const struct {
      double ms;
      int64_t want; /* -1: refused */
      const char *says;
    } cases[] = {
        {0, 0, ""},
        {0.0005, 1, ""},
        {1.0000001, 2, ""},
        {2, 2, ""},
        {86400000, 86400000, ""},
        {86400000.5, -1, "86400000.5 ms, past its maximum"},
        {-0.000001, -1, "got -0.000001 ms"},
        {-0.5, -1, "got -0.5 ms"},
        {NAN, -1, "finite"},
        {1e300, -1, "past its maximum"},
        {-1e300, -1, "must not be negative"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
      sfc_status st = set_duration_double("maxWait", cases[i].ms, &dms, &err);
      if (cases[i].want >= 0)
        CHECK(st == SFC_OK && dms == cases[i].want, "%g ms: %s %lld",
              cases[i].ms, sfc_status_name(st), (long long)dms);
      else
        CHECK(st == SFC_INVALID_ARGUMENT && strstr(err.message, cases[i].says),
              "%g ms: %s %s", cases[i].ms, sfc_status_name(st),
              st ? err.message : "");
    }
  }
  /* What a binding reports to its garbage collector per generator. */
  {
    sfc_layout tw;
    sfc_node_value nv[] = {{"datacenter", 1, SFC_SOURCE_EXPLICIT},
                           {"worker", 3, SFC_SOURCE_EXPLICIT}};
    sfc_options o;
    sfc_generator *g = NULL;
    sfc_options_init(&o);
    sfc_options_set_nodes(&o, nv, 2);
    CHECK_STATUS(sfc_layout_preset("twitter", &tw, &err), SFC_OK, err);
    CHECK_STATUS(sfc_generator_new(&tw, &o, &g, &err), SFC_OK, err);
    CHECK(sfc_generator_memory(g) >= 8192, "%zu", sfc_generator_memory(g));
    CHECK(sfc_generator_memory(NULL) == 0, "NULL");
    sfc_generator_free(g);
  }
  CHECK(set_duration("max_waits", 0, 0, &dms, &err) == SFC_INVALID_ARGUMENT &&
            strstr(err.message, "unknown option"),
        "%s", err.message);

  /* Times. */
  char iso[SFC_ISO_MAX];
  sfc_format_iso(0, iso, sizeof iso);
  CHECK(strcmp(iso, "1970-01-01T00:00:00.000Z") == 0, "%s", iso);
  sfc_format_iso(-1, iso, sizeof iso);
  CHECK(strcmp(iso, "1969-12-31T23:59:59.999Z") == 0, "%s", iso);
  sfc_format_iso(253402300800000, iso, sizeof iso);
  CHECK(strcmp(iso, "+010000-01-01T00:00:00.000Z") == 0, "%s", iso);
  sfc_format_iso(951782400000, iso, sizeof iso);
  CHECK(strcmp(iso, "2000-02-29T00:00:00.000Z") == 0, "%s", iso);
  iso_against_gmtime();
  json_against_printf();
  int64_t ms;
  CHECK_STATUS(sfc_epoch_parse("2016-04-30T11:18:25.796Z", &ms, &err), SFC_OK,
               err);
  CHECK(ms == 1462015105796, "%" PRId64, ms);
  CHECK_STATUS(sfc_epoch_parse("2024-01-01", &ms, &err), SFC_OK, err);
  CHECK(ms == 1704067200000, "%" PRId64, ms);
  CHECK_STATUS(sfc_epoch_parse("2024-01-01T00:00:00+00:00", &ms, &err), SFC_OK,
               err);
  const char *bad_epochs[] = {"2023-02-29",
                              "2024-13-01",
                              "2024-01-01T25:00Z",
                              "yesterday",
                              "2024-01-01T00:00:00+01:00",
                              "12.5",
                              ""};
  for (size_t i = 0; i < sizeof bad_epochs / sizeof *bad_epochs; i++)
    CHECK(sfc_epoch_parse(bad_epochs[i], &ms, &err) == SFC_INVALID_LAYOUT,
          "epoch '%s' accepted", bad_epochs[i]);

  /* Canonical spec and description. */
  sfc_layout l =
      check_layout("time:39@10000us,seq:8,machine:16", 1409529600000);
  char spec[SFC_SPEC_MAX];
  sfc_layout_spec(&l, spec, sizeof spec);
  CHECK(strcmp(spec, "time:39@10ms,seq:8,machine:16") == 0, "%s", spec);
  sfc_layout_info info;
  sfc_layout_describe(&l, &info);
  CHECK(info.ids_per_second == 25600.0, "%f", info.ids_per_second);
  CHECK(info.node_capacity == 65536.0, "%f", info.node_capacity);

  /* A message names the problem. */
  sfc_layout out;
  CHECK(sfc_layout_parse("time:41,seq:12,worker:12", 0, &out, &err) ==
                SFC_INVALID_LAYOUT &&
            strstr(err.message, "65 bits"),
        "%s", err.message);
  CHECK(sfc_layout_parse("seq:12,time:41", 0, &out, &err) ==
                SFC_INVALID_LAYOUT &&
            strstr(err.message, "first"),
        "%s", err.message);
  return check_summary();
}
