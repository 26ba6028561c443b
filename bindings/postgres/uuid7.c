/* UUIDv7s decoded with no layout (RFC 9562 fixes theirs): the canonical
 * JSON as jsonb and as the exact text, and the time as timestamptz. The
 * argument is a uuid (PostgreSQL's type, as its canonical text) or text
 * (the 8-4-4-4-12 form or 32 hex digits, as in every language); the core
 * parses it and refuses a version other than 7. */
#include "snowflake_c_pg.h"

#include "catalog/pg_type.h"
#include "datatype/timestamp.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

PG_FUNCTION_INFO_V1(sfc_pg_decode_uuid7);
PG_FUNCTION_INFO_V1(sfc_pg_decode_uuid7_json);
PG_FUNCTION_INFO_V1(sfc_pg_decode_uuid7_time);

/* Argument 0 decoded by the core, from its uuid or text form. */
static void uuid7_arg(FunctionCallInfo fcinfo, sfc_uuid7 *out) {
  sfc_error err;
  sfc_status status;
  if (get_fn_expr_argtype(fcinfo->flinfo, 0) == UUIDOID) {
    static const char hex[] = "0123456789abcdef";
    const pg_uuid_t *uuid = PG_GETARG_UUID_P(0);
    char text[36];
    size_t n = 0;
    for (int i = 0; i < UUID_LEN; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10) text[n++] = '-';
      text[n++] = hex[uuid->data[i] >> 4];
      text[n++] = hex[uuid->data[i] & 15];
    }
    status = sfc_uuid7_parse(text, n, out, &err);
  } else {
    text *in = PG_GETARG_TEXT_PP(0);
    status = sfc_uuid7_parse(VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in), out, &err);
  }
  if (status != SFC_OK) sfc_pg_raise(&err);
}

static char *uuid7_json(FunctionCallInfo fcinfo) {
  sfc_uuid7 uuid;
  char *buf = palloc(SFC_UUID7_JSON_MAX);
  uuid7_arg(fcinfo, &uuid);
  sfc_uuid7_json(&uuid, buf, SFC_UUID7_JSON_MAX);
  return buf;
}

Datum sfc_pg_decode_uuid7(PG_FUNCTION_ARGS) {
  return DirectFunctionCall1(jsonb_in, CStringGetDatum(uuid7_json(fcinfo)));
}

Datum sfc_pg_decode_uuid7_json(PG_FUNCTION_ARGS) {
  PG_RETURN_TEXT_P(cstring_to_text(uuid7_json(fcinfo)));
}

Datum sfc_pg_decode_uuid7_time(PG_FUNCTION_ARGS) {
  sfc_uuid7 uuid;
  uuid7_arg(fcinfo, &uuid);
  /* Unix ms (below 2^48: the year 10889) to PostgreSQL's µs since
   * 2000-01-01, inside timestamptz's range. */
  PG_RETURN_TIMESTAMPTZ((TimestampTz)uuid.unix_ms * 1000 -
                        (TimestampTz)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
                            USECS_PER_DAY);
}
