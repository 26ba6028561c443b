/* One value of the core's tables (stats, layout facts) as JSON, as the CLI
 * writes it: an ID (a name "id" or ending in "_id") as a decimal string,
 * since JSON consumers lose precision above 2^53. */
#include "snowflake_c_pg.h"

#include <inttypes.h>

#include "utils/json.h"

bool sfc_pg_json_is_id(const char *name) {
  size_t n = strlen(name);
  return strcmp(name, "id") == 0 || (n > 3 && strcmp(name + n - 3, "_id") == 0);
}

void sfc_pg_json_value(StringInfo out, const sfc_value *v, bool id) {
  const char *quote = id ? "\"" : "";
  switch (v->type) {
  case SFC_TYPE_BOOL:
    appendStringInfoString(out, v->i ? "true" : "false");
    break;
  case SFC_TYPE_INT:
    appendStringInfo(out, "%s%" PRId64 "%s", quote, v->i, quote);
    break;
  case SFC_TYPE_UINT:
    appendStringInfo(out, "%s%" PRIu64 "%s", quote, v->u, quote);
    break;
  case SFC_TYPE_DOUBLE:
    appendStringInfo(out, "%.17g", v->d);
    break;
  case SFC_TYPE_TEXT:
    if (v->text)
      escape_json(out, v->text);
    else
      appendStringInfoString(out, "null");
    break;
  default:
    appendStringInfoString(out, "null");
  }
}
