/* The string forms of an ID: format_id and parse_id, the core's encodings
 * by name, fixed width unless pad => false. */
#include "snowflake_c_pg.h"

#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(sfc_pg_format_id);
PG_FUNCTION_INFO_V1(sfc_pg_parse_id);

static sfc_encoding encoding_arg(FunctionCallInfo fcinfo, int i) {
  text *name = PG_GETARG_TEXT_PP(i);
  sfc_encoding encoding;
  sfc_error err;
  if (sfc_encoding_by_name(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name),
                           &encoding, &err) != SFC_OK)
    sfc_pg_raise(&err);
  return encoding;
}

Datum sfc_pg_format_id(PG_FUNCTION_ARGS) {
  uint64_t id = sfc_pg_id_arg(PG_GETARG_INT64(0));
  sfc_encoding encoding = encoding_arg(fcinfo, 1);
  unsigned flags = PG_GETARG_BOOL(2) ? 0 : SFC_FORMAT_SHORTEST;
  char buf[SFC_ENCODED_MAX];
  size_t n = sfc_id_format(id, encoding, flags, buf, sizeof buf);
  PG_RETURN_TEXT_P(cstring_to_text_with_len(buf, (int)n));
}

Datum sfc_pg_parse_id(PG_FUNCTION_ARGS) {
  text *in = PG_GETARG_TEXT_PP(0);
  sfc_encoding encoding = encoding_arg(fcinfo, 1);
  uint64_t id;
  sfc_error err;
  if (sfc_id_parse(VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in), encoding, &id,
                   &err) != SFC_OK)
    sfc_pg_raise(&err);
  PG_RETURN_INT64(sfc_pg_id_result(id));
}
