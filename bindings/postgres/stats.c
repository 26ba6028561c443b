/* stats(): the shared generator's counters and settings as jsonb, by the
 * core's table of stats (names and types), as every language reports them. */
#include "snowflake_c_pg.h"

PG_FUNCTION_INFO_V1(sfc_pg_stats);

Datum sfc_pg_stats(PG_FUNCTION_ARGS) {
  sfc_stats stats;
  StringInfoData json;
  sfk_sink out = sfc_pg_sink(&json);
  sfc_generator_stats(sfc_pg_shared_generator(), &stats);
  initStringInfo(&json);
  sfk_json_stats(&out, &stats);
  return sfc_pg_jsonb(&json);
}
