/* layout(): what a layout is and can do, by the core's table of layout
 * facts — the same object as the CLI's `layout --json`. */
#include "snowflake_c_pg.h"

PG_FUNCTION_INFO_V1(sfc_pg_layout);

Datum sfc_pg_layout(PG_FUNCTION_ARGS) {
  const sfc_layout *layout = sfc_pg_layout_arg(fcinfo, 0);
  StringInfoData json;
  sfk_sink out = sfc_pg_sink(&json);
  initStringInfo(&json);
  sfk_json_layout(&out, layout);
  return sfc_pg_jsonb(&json);
}
