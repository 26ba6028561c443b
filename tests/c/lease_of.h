/* Leases for the tests that need no database: one of the node field
 * "worker" (time:41@1ms,worker:10,seq:12), and one whose first acquire
 * could not be run (its stats then say so). */
#ifndef LEASE_OF_H
#define LEASE_OF_H

#include "check.h"

static inline sfc_lease *new_lease(int64_t duration_ms) {
  sfc_layout layout;
  sfc_error err;
  CHECK_STATUS(sfc_layout_parse("time:41@1ms,worker:10,seq:12", 1704067200000,
                                &layout, &err),
               SFC_OK, err);
  sfc_node_value node[] = {{"worker", 0, SFC_SOURCE_LEASE}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_ms(&opts, SFC_OPTION_LEASE_DURATION, duration_ms);
  CHECK(sfc_lease_wanted(&layout, &opts), "a node value 'lease' is wanted");
  sfc_lease *lease = NULL;
  CHECK_STATUS(sfc_lease_new(&layout, &opts, &lease, &err), SFC_OK, err);
  return lease;
}

static inline sfc_lease *failed_lease(int64_t duration_ms, const char *why) {
  sfc_lease *lease = new_lease(duration_ms);
  if (!lease) return NULL;
  sfc_lease_query q;
  int64_t wait_us;
  sfc_lease_due(lease, &q, &wait_us);
  sfc_lease_failed(lease, &q, why);
  return lease;
}

#endif
