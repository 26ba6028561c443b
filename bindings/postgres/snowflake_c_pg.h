/* The glue of the PostgreSQL extension: what its files share. Each file has
 * one job; none holds layout or ID logic (that is the core's). */
#ifndef SNOWFLAKE_C_PG_H
#define SNOWFLAKE_C_PG_H

#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "snowflake_c.h"
#include "snowflake_c_kit.h"

/* errors.c: raises the core's error as an SQL error (never returns). */
pg_attribute_noreturn() void sfc_pg_raise(const sfc_error *err);
/* The same with a hint (NULL: none). */
pg_attribute_noreturn() void sfc_pg_raise_hint(const sfc_error *err,
                                               const char *hint);
/* Raises an error of the core's kind `status` with a message of our own. */
pg_attribute_noreturn() void sfc_pg_raise_status(sfc_status status,
                                                 const char *fmt, ...)
    pg_attribute_printf(2, 3);

/* layout_args.c: the layout of the arguments preset, layout and epoch that
 * start at argument `first` (exactly one of preset or layout + epoch). */
const sfc_layout *sfc_pg_layout_arg(FunctionCallInfo fcinfo, int first);

/* Conversions of IDs between bigint and the core's uint64_t. */
uint64_t sfc_pg_id_arg(int64 id);
int64 sfc_pg_id_result(uint64_t id);

/* json.c: the kit's sink into `out`, and the text it wrote as jsonb. */
sfk_sink sfc_pg_sink(StringInfo out);
Datum sfc_pg_jsonb(StringInfo json);

/* settings.c: the snowflake_c.* settings; sfc_pg_settings_options fills the
 * core's options from them, and sfc_pg_settings_layout resolves the layout;
 * both fail with `err` filled. */
void sfc_pg_settings_define(void);
sfc_status sfc_pg_settings_layout(sfc_layout *out, sfc_error *err);
/* The same, refused when no layout is set (decoding assumes none). */
sfc_status sfc_pg_settings_layout_named(sfc_layout *out, sfc_error *err);
sfc_status sfc_pg_settings_options(sfc_options *opts, sfk_node_list *node,
                                   sfc_error *err);
const char *sfc_pg_settings_node(void);

/* shared.c: the server's one generator in shared memory. */
void sfc_pg_shared_install(void);
/* The generator, or raises why there is none. */
sfc_generator *sfc_pg_shared_generator(void);

/* module.c: whether the library was loaded by shared_preload_libraries. */
extern bool sfc_pg_preloaded;

#endif
