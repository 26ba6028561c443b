/* encode: an ID from a jsonb object of its time and fields, as the other
 * languages take them: exactly one time key (time_ms, time_us, or time as
 * ISO-8601 UTC text) and every other field by name. The core checks each
 * field (missing, unknown, repeated, out of range) and says what is wrong. */
#include "snowflake_c_pg.h"

#include <errno.h>
#include <stdlib.h>

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(sfc_pg_encode);

/* The integer a jsonb number holds; refuses fractions and other types. */
static int64_t integer_of(const JsonbValue *v, const char *key) {
  char *digits, *end;
  long long n;
  if (v->type != jbvNumeric)
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "encode: '%s' must be an integer number.", key);
  digits = DatumGetCString(
      DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
  errno = 0;
  n = strtoll(digits, &end, 10);
  if (*end != '\0')
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "encode: '%s' must be an integer, not %s.", key,
                        digits);
  if (errno == ERANGE)
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "encode: '%s' is %s, too large for 64 bits.", key,
                        digits);
  return (int64_t)n;
}

static int64_t time_us_of(const char *key, const JsonbValue *v) {
  int64_t ms;
  if (strcmp(key, "time_us") == 0) return integer_of(v, key);
  if (strcmp(key, "time_ms") == 0) {
    ms = integer_of(v, key);
  } else {
    sfc_error err;
    char *text;
    if (v->type != jbvString)
      sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                          "encode: 'time' must be ISO-8601 UTC text such as "
                          "2024-01-01T00:00:00.000Z.");
    text = pnstrdup(v->val.string.val, v->val.string.len);
    if (sfc_epoch_parse(text, &ms, &err) != SFC_OK)
      sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                          "encode: time '%s' is neither Unix milliseconds nor "
                          "ISO-8601 UTC.",
                          text);
  }
  if (ms > INT64_MAX / 1000 || ms < INT64_MIN / 1000)
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "encode: time_ms %lld is out of range.", (long long)ms);
  return ms * 1000;
}

static bool is_time_key(const char *key) {
  return strcmp(key, "time_ms") == 0 || strcmp(key, "time_us") == 0 ||
         strcmp(key, "time") == 0;
}

Datum sfc_pg_encode(PG_FUNCTION_ARGS) {
  Jsonb *in;
  const sfc_layout *layout;
  JsonbIterator *it;
  JsonbIteratorToken tok;
  JsonbValue v;
  sfc_node_value *fields;
  size_t count = 0;
  const char *time_key = NULL;
  int64_t time_us = 0;
  uint64_t id;
  sfc_error err;

  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  in = PG_GETARG_JSONB_P(0);
  layout = sfc_pg_layout_arg(fcinfo, 1);
  if (!JB_ROOT_IS_OBJECT(in))
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "encode takes a jsonb object: {\"time_ms\": …, "
                        "\"<field>\": value, …}.");
  fields = palloc0(sizeof *fields * (JB_ROOT_COUNT(in) + 1));
  it = JsonbIteratorInit(&in->root);
  while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE) {
    char *key;
    if (tok != WJB_KEY) continue;
    key = pnstrdup(v.val.string.val, v.val.string.len);
    tok = JsonbIteratorNext(&it, &v, true);
    if (is_time_key(key)) {
      if (time_key)
        sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                            "encode needs exactly one of time_ms, time_us, "
                            "time, not %s and %s.",
                            time_key, key);
      time_key = key;
      time_us = time_us_of(key, &v);
      continue;
    }
    fields[count].name = key;
    fields[count].value = integer_of(&v, key);
    fields[count].source = SFC_SOURCE_EXPLICIT;
    count++;
  }
  if (!time_key)
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "encode needs exactly one of time_ms, time_us, time.");
  if (sfc_encode_named(layout, time_us, fields, count, &id, &err) != SFC_OK)
    sfc_pg_raise(&err);
  PG_RETURN_INT64(sfc_pg_id_result(id));
}
