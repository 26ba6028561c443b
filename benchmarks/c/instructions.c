/* The hot path's cost in instructions: N calls of sfc_next (the default
 * preset, the wall clock), run under callgrind with collection on inside
 * sfc_next only (benchmarks/c/instructions). A count, unlike a time, is the
 * same on every run: a change to the hot path shows as a change here. */
#include "snowflake_c.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  sfc_layout layout;
  sfc_error err;
  if (sfc_layout_preset("default", &layout, &err) != SFC_OK) return 2;
  sfc_node_value node = {"worker", 7, SFC_SOURCE_EXPLICIT};
  sfc_options opts;
  sfc_options_init(&opts);
  opts.node = &node;
  opts.node_count = 1;
  opts.guard_off = 1; /* no claim: the run may meet another generator */
  sfc_generator *g;
  if (sfc_generator_new(&layout, &opts, &g, &err) != SFC_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 2;
  }
  uint64_t id = 0, sum = 0;
  for (long i = 0; i < n; i++) {
    if (sfc_next(g, &id, &err) != SFC_OK) return 1;
    sum ^= id;
  }
  sfc_generator_free(g);
  printf("%llu\n", (unsigned long long)(sum & 1));
  return 0;
}
