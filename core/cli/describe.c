/* layout and presets: the facts of a layout, and the presets' list. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

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
    sfk_sink out = sfk_file_sink(stdout);
    sfk_json_layout(&out, l);
    putchar('\n');
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
    if (c->json) {
      sfk_sink out = sfk_file_sink(stdout);
      sfc_error err;
      if (sfk_json_preset(&out, i, &err) != SFC_OK) return fail(&err);
      putchar('\n');
      continue;
    }
    sfc_preset_at(i, &name, &spec, &epoch);
    /* When its IDs run out: a layout chosen for years needs to say so. */
    sfc_layout l;
    sfc_layout_info info;
    sfc_error err;
    if (sfc_layout_preset(name, &l, &err) != SFC_OK) return fail(&err);
    sfc_layout_describe(&l, &info);
    char end[SFC_ISO_MAX];
    sfc_format_iso(info.time_end_ms, end, sizeof end);
    printf("%-10s %-42s %-14" PRId64 " %s %.10s\n", name, spec, epoch,
           info.time_end_ms > (int64_t)time(NULL) * 1000 ? "runs out"
                                                         : "ran out ",
           end);
  }
  return 0;
}
