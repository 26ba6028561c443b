/* The kit's sink into a StringInfo, and the kit's JSON as jsonb: the same
 * bytes as the CLI's --json and every other host. */
#include "snowflake_c_pg.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"

static void append(void *ctx, const char *bytes, size_t n) {
  appendBinaryStringInfo((StringInfo)ctx, bytes, (int)n);
}

sfk_sink sfc_pg_sink(StringInfo out) {
  sfk_sink sink = {append, out};
  return sink;
}

Datum sfc_pg_jsonb(StringInfo json) {
  return DirectFunctionCall1(jsonb_in, CStringGetDatum(json->data));
}
