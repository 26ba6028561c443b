/* Decoding: an ID's canonical JSON (as jsonb and as the exact text), its
 * time as timestamptz, one field by name. */
#include "snowflake_c_pg.h"

#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(sfc_pg_decode);
PG_FUNCTION_INFO_V1(sfc_pg_decode_json);
PG_FUNCTION_INFO_V1(sfc_pg_decode_time);
PG_FUNCTION_INFO_V1(sfc_pg_field);

/* Decodes argument 0 with the layout of the arguments from `first`. */
static const sfc_layout *decode_arg(FunctionCallInfo fcinfo, int first,
                                    sfc_parts *parts) {
  const sfc_layout *layout = sfc_pg_layout_arg(fcinfo, first);
  sfc_error err;
  if (sfc_decode(layout, sfc_pg_id_arg(PG_GETARG_INT64(0)), parts, &err) !=
      SFC_OK)
    sfc_pg_raise(&err);
  return layout;
}

static char *canonical_json(FunctionCallInfo fcinfo, int first) {
  sfc_parts parts;
  const sfc_layout *layout = decode_arg(fcinfo, first, &parts);
  char *buf = palloc(SFC_JSON_MAX);
  sfc_parts_json(layout, &parts, buf, SFC_JSON_MAX);
  return buf;
}

Datum sfc_pg_decode(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  return DirectFunctionCall1(jsonb_in,
                             CStringGetDatum(canonical_json(fcinfo, 1)));
}

Datum sfc_pg_decode_json(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  PG_RETURN_TEXT_P(cstring_to_text(canonical_json(fcinfo, 1)));
}

Datum sfc_pg_decode_time(PG_FUNCTION_ARGS) {
  sfc_parts parts;
  TimestampTz t;
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  decode_arg(fcinfo, 1, &parts);
  /* Unix µs to PostgreSQL's µs since 2000-01-01: the core keeps times
   * within the year 294000, inside timestamptz's range. */
  t = (TimestampTz)parts.time_us -
      (TimestampTz)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
  if (!IS_VALID_TIMESTAMP(t))
    ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                    errmsg("timestamp out of range")));
  PG_RETURN_TIMESTAMPTZ(t);
}

Datum sfc_pg_field(PG_FUNCTION_ARGS) {
  sfc_parts parts;
  const sfc_layout *layout;
  char *name;
  int i;
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) PG_RETURN_NULL();
  layout = decode_arg(fcinfo, 2, &parts);
  name = text_to_cstring(PG_GETARG_TEXT_PP(1));
  i = sfc_layout_field_index(layout, name);
  if (i < 0) {
    char spec[SFC_SPEC_MAX];
    sfc_layout_spec(layout, spec, sizeof spec);
    sfc_pg_raise_status(SFC_INVALID_ARGUMENT,
                        "the layout %s has no field '%s': give one of its "
                        "field names.",
                        spec, name);
  }
  /* Every field is narrower than 64 bits (time and seq take one at least),
   * so its value fits a bigint. */
  PG_RETURN_INT64((int64)parts.values[i]);
}
