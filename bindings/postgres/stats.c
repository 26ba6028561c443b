/* stats(): the shared generator's counters and settings as jsonb, by the
 * core's table of stats (names and types), as every language reports them. */
#include "snowflake_c_pg.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

PG_FUNCTION_INFO_V1(sfc_pg_stats);

Datum sfc_pg_stats(PG_FUNCTION_ARGS) {
  sfc_generator *gen = sfc_pg_shared_generator();
  sfc_stats stats;
  StringInfoData out;
  const sfc_fact_info *fact;
  sfc_generator_stats(gen, &stats);
  initStringInfo(&out);
  appendStringInfoChar(&out, '{');
  for (size_t i = 0; (fact = sfc_stats_fact_at(i)) != NULL; i++) {
    sfc_value v;
    if (sfc_stats_fact(&stats, i, &v) != SFC_OK) continue;
    if (i) appendStringInfoChar(&out, ',');
    escape_json(&out, fact->name);
    appendStringInfoChar(&out, ':');
    if (v.type == SFC_TYPE_MAP) {
      const char *key;
      sfc_value e;
      appendStringInfoChar(&out, '{');
      for (size_t j = 0; sfc_stats_entry(&stats, i, j, &key, &e); j++) {
        if (j) appendStringInfoChar(&out, ',');
        escape_json(&out, key);
        appendStringInfoChar(&out, ':');
        sfc_pg_json_value(&out, &e, false);
      }
      appendStringInfoChar(&out, '}');
    } else {
      sfc_pg_json_value(&out, &v, sfc_pg_json_is_id(fact->name));
    }
  }
  appendStringInfoChar(&out, '}');
  return DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data));
}
