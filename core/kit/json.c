/* The canonical JSON of the core's tables: layouts, stats, presets,
 * decoded parts and errors, the same bytes from every host. */
#include <inttypes.h>
#include <string.h>

#include "snowflake_c_kit.h"

bool sfk_is_id(const char *name) {
  size_t n = strlen(name);
  return strcmp(name, "id") == 0 || (n > 3 && strcmp(name + n - 3, "_id") == 0);
}

void sfk_json_text(const sfk_sink *out, const char *text) {
  const char *run = text;
  sfk_put(out, "\"");
  for (const char *s = text; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch != '"' && ch != '\\' && ch >= 0x20) continue;
    out->write(out->ctx, run, (size_t)(s - run));
    if (ch == '"' || ch == '\\')
      sfk_printf(out, "\\%c", ch);
    else
      sfk_printf(out, "\\u%04x", ch);
    run = s + 1;
  }
  sfk_put(out, run);
  sfk_put(out, "\"");
}

void sfk_json_value(const sfk_sink *out, const sfc_value *v, bool id) {
  const char *quote = id ? "\"" : "";
  switch (v->type) {
  case SFC_TYPE_BOOL:
    sfk_put(out, v->i ? "true" : "false");
    break;
  case SFC_TYPE_INT:
    sfk_printf(out, "%s%" PRId64 "%s", quote, v->i, quote);
    break;
  case SFC_TYPE_UINT:
    sfk_printf(out, "%s%" PRIu64 "%s", quote, v->u, quote);
    break;
  case SFC_TYPE_DOUBLE:
    sfk_printf(out, "%.17g", v->d);
    break;
  case SFC_TYPE_TEXT:
    if (v->text) {
      sfk_json_text(out, v->text);
      break;
    }
    /* fall through */
  default:
    sfk_put(out, "null");
  }
}

/* "name": */
static void key(const sfk_sink *out, size_t i, const char *name) {
  sfk_put(out, i ? "," : "");
  sfk_json_text(out, name);
  sfk_put(out, ":");
}

static void layout_fields(const sfk_sink *out, const sfc_layout *layout) {
  sfk_put(out, "[");
  for (unsigned j = 0; j < layout->field_count; j++) {
    const sfc_fact_info *fact;
    sfk_put(out, j ? ",{" : "{");
    for (size_t k = 0; (fact = sfc_field_fact_at(k)); k++) {
      sfc_value v;
      if (sfc_field_fact(&layout->fields[j], k, &v) != SFC_OK) continue;
      key(out, k, fact->name);
      sfk_json_value(out, &v, sfk_is_id(fact->name));
    }
    sfk_put(out, "}");
  }
  sfk_put(out, "]");
}

void sfk_json_layout(const sfk_sink *out, const sfc_layout *layout) {
  const sfc_fact_info *fact;
  sfk_put(out, "{");
  for (size_t i = 0; (fact = sfc_layout_fact_at(i)); i++) {
    char buf[SFC_SPEC_MAX];
    sfc_value v;
    if (sfc_layout_fact(layout, i, &v, buf, sizeof buf) != SFC_OK) continue;
    key(out, i, fact->name);
    if (v.type == SFC_TYPE_LIST)
      layout_fields(out, layout);
    else
      sfk_json_value(out, &v, sfk_is_id(fact->name));
  }
  sfk_put(out, "}");
}

void sfk_json_stats(const sfk_sink *out, const sfc_stats *stats) {
  const sfc_fact_info *fact;
  sfk_put(out, "{");
  for (size_t i = 0; (fact = sfc_stats_fact_at(i)); i++) {
    sfc_value v;
    if (sfc_stats_fact(stats, i, &v) != SFC_OK) continue;
    key(out, i, fact->name);
    if (v.type != SFC_TYPE_MAP) {
      sfk_json_value(out, &v, sfk_is_id(fact->name));
      continue;
    }
    const char *name;
    sfc_value e;
    sfk_put(out, "{");
    for (size_t j = 0; sfc_stats_entry(stats, i, j, &name, &e); j++) {
      key(out, j, name);
      sfk_json_value(out, &e, false);
    }
    sfk_put(out, "}");
  }
  sfk_put(out, "}");
}

void sfk_json_parts(const sfk_sink *out, const sfc_layout *layout,
                    const sfc_parts *parts) {
  char buf[SFC_JSON_MAX];
  size_t n = sfc_parts_json(layout, parts, buf, sizeof buf);
  out->write(out->ctx, buf, n);
}

sfc_status sfk_json_preset(const sfk_sink *out, size_t i, sfc_error *err) {
  const char *name, *spec;
  int64_t epoch;
  sfc_layout layout;
  sfc_layout_info info;
  if (i >= sfc_preset_count()) {
    err->status = SFC_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message, "There are %zu presets.",
             sfc_preset_count());
    return SFC_INVALID_ARGUMENT;
  }
  sfc_preset_at(i, &name, &spec, &epoch);
  sfc_status st = sfc_layout_preset(name, &layout, err);
  if (st != SFC_OK) return st;
  sfc_layout_describe(&layout, &info);
  sfk_put(out, "{\"name\":");
  sfk_json_text(out, name);
  sfk_put(out, ",\"spec\":");
  sfk_json_text(out, spec);
  sfk_printf(out, ",\"epoch_ms\":%" PRId64 ",\"time_end_ms\":%" PRId64 "}",
             epoch, info.time_end_ms);
  return SFC_OK;
}

void sfk_json_error(const sfk_sink *out, const sfc_error *err) {
  sfk_put(out, "{\"error\":{\"kind\":");
  sfk_json_text(out, sfc_status_name(err->status));
  sfk_put(out, ",\"message\":");
  sfk_json_text(out, err->message);
  sfk_put(out, "}}");
}
