/* The string forms of an ID: format_id and parse_id, the core's encodings
 * by name; format_id in the encoding's default form (dec the plain number,
 * the others fixed width) unless pad is given. */
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

/* Not STRICT: a NULL pad (its default) is the encoding's default form, a
 * NULL ID or encoding gives NULL as STRICT would. */
Datum sfc_pg_format_id(PG_FUNCTION_ARGS) {
  uint64_t id;
  sfc_encoding encoding;
  unsigned flags;
  char buf[SFC_ENCODED_MAX];
  size_t n;
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) PG_RETURN_NULL();
  id = sfc_pg_id_arg(PG_GETARG_INT64(0));
  encoding = encoding_arg(fcinfo, 1);
  flags = PG_NARGS() < 3 || PG_ARGISNULL(2) ? 0
          : PG_GETARG_BOOL(2)               ? SFC_FORMAT_FIXED
                                            : SFC_FORMAT_SHORTEST;
  n = sfc_id_format(id, encoding, flags, buf, sizeof buf);
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
