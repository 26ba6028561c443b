/* The layout arguments of the decode-side functions: preset, or layout (a
 * spec) with epoch, resolved by the core's one rule; none given, the
 * server's snowflake_c.preset (or .layout with .epoch). Unlike a
 * generator's, no layout is assumed: decoding with a layout the caller did
 * not mean gives plausible, wrong answers. The last layout resolved is kept
 * per call site (fn_extra), so a query over many rows parses it once. */
#include "snowflake_c_pg.h"

#include "utils/builtins.h"

typedef struct layout_cache {
  char *texts[3]; /* preset, spec, epoch as given; NULL: not given */
  sfc_layout layout;
} layout_cache;

static char *text_arg(FunctionCallInfo fcinfo, int i) {
  if (PG_NARGS() <= i || PG_ARGISNULL(i)) return NULL;
  return text_to_cstring(PG_GETARG_TEXT_PP(i));
}

static bool same(const char *a, const char *b) {
  return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

const sfc_layout *sfc_pg_layout_arg(FunctionCallInfo fcinfo, int first) {
  char *texts[3];
  layout_cache *cache = fcinfo->flinfo->fn_extra;
  sfc_layout layout;
  sfc_error err;
  for (int i = 0; i < 3; i++)
    texts[i] = text_arg(fcinfo, first + i);
  if (cache && same(cache->texts[0], texts[0]) &&
      same(cache->texts[1], texts[1]) && same(cache->texts[2], texts[2]))
    return &cache->layout;
  if (texts[0] == NULL && texts[1] == NULL && texts[2] == NULL) {
    /* The server's own layout, when one is configured; none is assumed. */
    if (sfc_pg_settings_layout_named(&layout, &err) != SFC_OK)
      sfc_pg_raise_hint(
          &err, "Pass preset => 'twitter' (or another preset), or layout => "
                "'time:41@1ms,worker:10,seq:12' with epoch => "
                "'1704067200000' (Unix ms or an ISO-8601 UTC instant); or "
                "set snowflake_c.preset in postgresql.conf.");
  } else if (sfc_layout_resolve_for_ids(NULL, texts[0], texts[1], texts[2],
                                        &layout, &err) != SFC_OK) {
    sfc_pg_raise(&err);
  }
  if (cache == NULL) {
    cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof *cache);
    fcinfo->flinfo->fn_extra = cache;
  }
  for (int i = 0; i < 3; i++) {
    if (cache->texts[i]) pfree(cache->texts[i]);
    cache->texts[i] =
        texts[i] ? MemoryContextStrdup(fcinfo->flinfo->fn_mcxt, texts[i])
                 : NULL;
  }
  cache->layout = layout;
  return &cache->layout;
}
