/* The names of a node value's files in the state_dir: "worker-5.lock" and
 * "worker-5.state", opened inside the folder and shown with its path. */
#include "internal.h"

#include <stdio.h>

void sfc_state_name_value(sfc_generator *g) {
  char *stem = g->state.stem;
  size_t n = sfc_node_text(&g->layout, &g->node, stem, sizeof g->state.stem);
  for (size_t i = 0; i < n; i++) {
    if (stem[i] == ',') stem[i] = '.';
    if (stem[i] == '=') stem[i] = '-';
  }
  if (!n) snprintf(stem, sizeof g->state.stem, "node");
  /* Many or long field names are hashed: a file name never runs past
   * NAME_MAX. */
  if (n > 96)
    snprintf(stem, sizeof g->state.stem, "node-%016llx",
             (unsigned long long)sfc_fnv1a(SFC_FNV_OFFSET, stem, n));
  snprintf(g->state.path, sizeof g->state.path, "%s/%s", g->state.dir, stem);
}

void sfc_state_file_name(const sfc_generator *g, const char *suffix,
                         sfc_file_name *out) {
  snprintf(out->name, sizeof out->name, "%s%s", g->state.stem, suffix);
  snprintf(out->path, sizeof out->path, "%s%s", g->state.path, suffix);
}

const char *sfc_state_dir_path(const sfc_generator *g) {
  return g->state.dir_real ? g->state.dir_real : g->state.dir;
}

int64_t sfc_state_now_tick(const sfc_generator *g) {
  int64_t since = sfc_generator_now_us(g) - g->epoch_us;
  return since < 0 ? 0 : since / g->unit_us;
}
