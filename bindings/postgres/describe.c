/* layout(): what a layout is and can do, by the core's table of layout
 * facts — the same object as the CLI's `layout --json`. */
#include "snowflake_c_pg.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

PG_FUNCTION_INFO_V1(sfc_pg_layout);

static void append_fields(StringInfo out, const sfc_layout *layout) {
  appendStringInfoChar(out, '[');
  for (unsigned j = 0; j < layout->field_count; j++) {
    const sfc_fact_info *fact;
    if (j) appendStringInfoChar(out, ',');
    appendStringInfoChar(out, '{');
    for (size_t k = 0; (fact = sfc_field_fact_at(k)) != NULL; k++) {
      sfc_value v;
      if (sfc_field_fact(&layout->fields[j], k, &v) != SFC_OK) continue;
      if (k) appendStringInfoChar(out, ',');
      escape_json(out, fact->name);
      appendStringInfoChar(out, ':');
      sfc_pg_json_value(out, &v, sfc_pg_json_is_id(fact->name));
    }
    appendStringInfoChar(out, '}');
  }
  appendStringInfoChar(out, ']');
}

Datum sfc_pg_layout(PG_FUNCTION_ARGS) {
  const sfc_layout *layout = sfc_pg_layout_arg(fcinfo, 0);
  const sfc_fact_info *fact;
  StringInfoData out;
  initStringInfo(&out);
  appendStringInfoChar(&out, '{');
  for (size_t i = 0; (fact = sfc_layout_fact_at(i)) != NULL; i++) {
    char buf[SFC_SPEC_MAX];
    sfc_value v;
    if (sfc_layout_fact(layout, i, &v, buf, sizeof buf) != SFC_OK) continue;
    if (i) appendStringInfoChar(&out, ',');
    escape_json(&out, fact->name);
    appendStringInfoChar(&out, ':');
    if (v.type == SFC_TYPE_LIST)
      append_fields(&out, layout);
    else
      sfc_pg_json_value(&out, &v, sfc_pg_json_is_id(fact->name));
  }
  appendStringInfoChar(&out, '}');
  return DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data));
}
