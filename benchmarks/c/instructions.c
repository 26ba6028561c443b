/* The hot path's cost in instructions: N calls of sfc_next (the default
 * preset, the wall clock), run under callgrind with collection on inside
 * sfc_next only (benchmarks/c/instructions). A count, unlike a time, is the
 * same on every run: a change to the hot path shows as a change here.
 * `instructions N lease`: the generator of a leased value (its fence in the
 * mark), the lease taken from a row handed to the core as a database would
 * answer, so that no server is needed. */
#include "snowflake_c.h"

#include "../../tests/c/set_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  sfc_layout layout;
  sfc_error err;
  if (sfc_layout_preset("default", &layout, &err) != SFC_OK) return 2;
  sfc_node_value node = {"worker", 7, SFC_SOURCE_EXPLICIT};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, &node, 1);
  set_bool(&opts, SFC_OPTION_GUARD,
           false); /* no claim: the run may meet another generator */
  sfc_generator *g;
  sfc_lease *lease = NULL;
  const int leased = argc > 2 && strcmp(argv[2], "lease") == 0;
  sfc_status st;
  if (leased) {
    node.source = SFC_SOURCE_LEASE;
    set_ms(&opts, SFC_OPTION_LEASE_DURATION, SFC_LEASE_DURATION_MS_MAX);
    st = sfc_lease_new(&layout, &opts, &lease, &err);
    sfc_lease_query q;
    int64_t wait_us;
    /* Value 7, no previous holder, a horizon far ahead. */
    const char *row[] = {"7", "-1", "4000000000000", "1"};
    if (st == SFC_OK && sfc_lease_due(lease, &q, &wait_us) == SFC_LEASE_ACQUIRE)
      st = sfc_lease_done(lease, &q, row, 4, &err);
    if (st == SFC_OK) st = sfc_lease_generator_new(lease, &opts, &g, &err);
  } else {
    st = sfc_generator_new(&layout, &opts, &g, &err);
  }
  if (st != SFC_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 2;
  }
  uint64_t id = 0, sum = 0;
  for (long i = 0; i < n; i++) {
    if (sfc_next(g, &id, &err) != SFC_OK) return 1;
    sum ^= id;
  }
  sfc_generator_free(g);
  sfc_lease_free(lease);
  printf("%llu\n", (unsigned long long)(sum & 1));
  return 0;
}
