/* layout and presets: the facts of a layout, and the presets' list. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

/* The layout's description: the core's table of facts, in its order. */
static void print_layout_json(const sfc_layout *l) {
  const sfc_fact_info *f;
  char buf[SFC_SPEC_MAX];
  for (size_t i = 0; (f = sfc_layout_fact_at(i)); i++) {
    sfc_value v;
    sfc_layout_fact(l, i, &v, buf, sizeof buf);
    printf("%s\"%s\":", i ? "," : "{", f->name);
    if (v.type != SFC_TYPE_LIST) {
      json_value(stdout, &v, is_id(f->name));
      continue;
    }
    for (unsigned j = 0; j < l->field_count; j++) {
      const sfc_fact_info *g;
      for (size_t k = 0; (g = sfc_field_fact_at(k)); k++) {
        sfc_value fv;
        sfc_field_fact(&l->fields[j], k, &fv);
        printf("%s\"%s\":", k ? "," : j ? ",{" : "[{", g->name);
        json_value(stdout, &fv, is_id(g->name));
      }
      putchar('}');
    }
    putchar(']');
  }
  puts("}");
}

int cmd_layout(cli *c, int argc, char **argv) {
  (void)argv;
  if (argc)
    return usage_error(find_command("layout"), "layout takes no arguments");
  const sfc_layout *l = &c->layout;
  sfc_layout_info info;
  sfc_layout_describe(l, &info);
  char spec[SFC_SPEC_MAX], epoch[SFC_ISO_MAX], end[SFC_ISO_MAX];
  sfc_layout_spec(l, spec, sizeof spec);
  sfc_format_iso(l->epoch_ms, epoch, sizeof epoch);
  sfc_format_iso(info.time_end_ms, end, sizeof end);
  if (c->json) {
    print_layout_json(l);
    return 0;
  }
  printf("layout          %s\nepoch           %" PRId64 " (%s)\n"
         "bits            %u\n\n%-12s %-6s %5s %6s  %s\n",
         spec, l->epoch_ms, epoch, l->total_bits, "field", "kind", "bits",
         "shift", "max");
  for (unsigned i = 0; i < l->field_count; i++) {
    const sfc_field *f = &l->fields[i];
    printf("%-12s %-6s %5u %6u  %" PRIu64 "\n", f->name,
           sfc_field_kind_name(f->kind), f->bits, f->shift, f->max);
  }
  printf("\nIDs per second  %.0f per node\nnodes           %.0f\n"
         "time runs out   %s\n",
         info.ids_per_second, info.node_capacity, end);
  return 0;
}

int cmd_presets(cli *c, int argc, char **argv) {
  (void)argv;
  if (argc)
    return usage_error(find_command("presets"), "presets takes no arguments");
  for (size_t i = 0; i < sfc_preset_count(); i++) {
    const char *name, *spec;
    int64_t epoch;
    sfc_preset_at(i, &name, &spec, &epoch);
    /* When its IDs run out: a layout chosen for years needs to say so. */
    sfc_layout l;
    sfc_layout_info info;
    sfc_error err;
    if (sfc_layout_preset(name, &l, &err) != SFC_OK) return fail(&err);
    sfc_layout_describe(&l, &info);
    char end[SFC_ISO_MAX];
    sfc_format_iso(info.time_end_ms, end, sizeof end);
    if (c->json)
      printf("{\"name\":\"%s\",\"spec\":\"%s\",\"epoch_ms\":%" PRId64
             ",\"time_end_ms\":%" PRId64 "}\n",
             name, spec, epoch, info.time_end_ms);
    else
      printf("%-10s %-42s %-14" PRId64 " %s %.10s\n", name, spec, epoch,
             info.time_end_ms > (int64_t)time(NULL) * 1000 ? "runs out"
                                                           : "ran out ",
             end);
  }
  return 0;
}
