/* The server settings of the shared generator, all PGC_POSTMASTER: read
 * once when the server starts, so a change under a running server never
 * reaches the generator (it needs a restart, which keeps the persisted
 * mark). snowflake_c.preset, or .layout with .epoch, give the layout (none:
 * the core's default preset); snowflake_c.node the node values as
 * NAME=VALUE pairs, with no default; and one setting per option of the
 * core's table (snowflake_c.rollback, .max_wait, …) except state_dir, which
 * is the data directory's snowflake_c folder. A bad value is reported when
 * the generator is made (in the log, and by next_id()), never by refusing
 * to start: decoding needs none of it. */
#include "snowflake_c_pg.h"

#include "utils/guc.h"
#include "utils/memutils.h"

static char *preset_setting, *layout_setting, *epoch_setting, *node_setting;

/* One per row of sfc_option_at: text, or bool for a BOOL option. */
typedef struct option_setting {
  const sfc_option_info *info;
  char *text;
  bool flag;
} option_setting;

/* Every row of the table but state_dir, however many it has. */
static option_setting *options;
static size_t option_count;

static void define_text(const char *name, char **var, const char *doc) {
  DefineCustomStringVariable(name, doc, NULL, var, NULL, PGC_POSTMASTER, 0,
                             NULL, NULL, NULL);
}

void sfc_pg_settings_define(void) {
  const sfc_option_info *info;
  size_t rows = 0;
  define_text("snowflake_c.preset", &preset_setting,
              "The generator's preset (twitter, discord, …).");
  define_text("snowflake_c.layout", &layout_setting,
              "The generator's layout spec, with snowflake_c.epoch.");
  define_text("snowflake_c.epoch", &epoch_setting,
              "The epoch of snowflake_c.layout: Unix ms or ISO-8601 UTC.");
  define_text(
      "snowflake_c.node", &node_setting,
      "The generator's node values: worker=3 or datacenter=1,worker=3.");
  while (sfc_option_at(rows) != NULL)
    rows++;
  options = MemoryContextAllocZero(TopMemoryContext, rows * sizeof *options);
  for (size_t i = 0; (info = sfc_option_at(i)) != NULL; i++) {
    option_setting *s;
    char *name;
    if (info->option == SFC_OPTION_STATE_DIR) continue;
    s = &options[option_count++];
    s->info = info;
    name = MemoryContextStrdup(TopMemoryContext,
                               psprintf("snowflake_c.%s", info->name));
    if (info->type == SFC_TYPE_BOOL)
      DefineCustomBoolVariable(name, info->doc, NULL, &s->flag,
                               strcmp(info->default_text, "true") == 0,
                               PGC_POSTMASTER, 0, NULL, NULL, NULL);
    else
      define_text(name, &s->text, info->doc);
  }
  MarkGUCPrefixReserved("snowflake_c");
}

static const char *given(const char *setting) {
  return setting && *setting ? setting : NULL;
}

const char *sfc_pg_settings_node(void) {
  return given(node_setting);
}

sfc_status sfc_pg_settings_layout(sfc_layout *out, sfc_error *err) {
  return sfc_layout_resolve(NULL, given(preset_setting), given(layout_setting),
                            given(epoch_setting), out, err);
}

sfc_status sfc_pg_settings_layout_named(sfc_layout *out, sfc_error *err) {
  return sfc_layout_resolve_for_ids(NULL, given(preset_setting),
                                    given(layout_setting), given(epoch_setting),
                                    out, err);
}

sfc_status sfc_pg_settings_options(sfc_options *opts, sfk_node_list *node,
                                   sfc_error *err) {
  sfc_status st;
  sfc_options_init(opts);
  for (size_t i = 0; i < option_count; i++) {
    const option_setting *s = &options[i];
    sfc_value v = {SFC_TYPE_TEXT, 0, 0, 0, NULL, 0, 0};
    if (s->info->type == SFC_TYPE_BOOL) {
      v.type = SFC_TYPE_BOOL;
      v.i = s->flag;
    } else if (given(s->text)) {
      v.text = s->text;
      v.len = strlen(s->text);
    } else {
      continue;
    }
    st = sfc_options_set(opts, s->info->name, strlen(s->info->name), &v, err);
    if (st != SFC_OK) return st;
  }
  if (!given(node_setting)) {
    err->status = SFC_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message,
             "snowflake_c.node is not set: the server's generator has no "
             "node value. Set it in postgresql.conf (snowflake_c.node = "
             "'worker=3'), a value no other generator of these IDs uses, "
             "and restart the server.");
    return SFC_INVALID_ARGUMENT;
  }
  st = sfk_node_list_split(node, node_setting, "snowflake_c.node", err);
  if (st == SFC_OK) st = sfk_node_list_values(node, err);
  sfc_options_set_nodes(opts, node->values, node->count);
  return st;
}
