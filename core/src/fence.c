/* The fence of a leased node value: no ID past the horizon the lease row
 * holds (the mark written ahead, in the database), and none once the lease
 * may have expired (its deadline, on the monotonic clock). Both join the
 * mark as one limit in ticks — the lower of the horizon and the tick the
 * deadline falls in on the generator's clock — so that the hot path pays
 * no comparison of its own; the slow path judges the deadline exactly. */
#include "internal.h"

#include <stdio.h>

/* The last tick that ends by the deadline, by the generator's clock now;
 * -1 when none does. Not the tick the deadline falls in: the hot path
 * issues in a tick to its end, and no call may issue past the deadline.
 * The generator's clock is read first: a pause between the two readings
 * (a preemption, a stopped VM) then moves the limit earlier, where the
 * other order moved it later by the pause (simulator seed 1796102530). */
static int64_t deadline_tick(const sfc_generator *g) {
  const int64_t now_us = sfc_generator_now_us(g);
  const int64_t left_us = g->fence.deadline_us - sfc_monotonic_us();
  if (left_us <= 0) return -1;
  const int64_t at_us = now_us + left_us - g->epoch_us;
  return at_us < g->unit_us ? -1 : at_us / g->unit_us - 1;
}

static void refresh(sfc_generator *g) {
  int64_t limit = g->fence.lost ? -1 : deadline_tick(g);
  if (g->fence.horizon < limit) limit = g->fence.horizon;
  g->fence.limit = limit;
  sfc_mark_update(g);
}

void sfc_fence_set(sfc_generator *g, int64_t horizon, int64_t deadline_us) {
  g->fence.on = true;
  if (horizon > g->fence.horizon) g->fence.horizon = horizon;
  g->fence.deadline_us = deadline_us;
  atomic_store(&g->fence.wanted, false);
  refresh(g);
}

void sfc_fence_lose(sfc_generator *g) {
  g->fence.lost = true;
  refresh(g);
}

sfc_status sfc_fence_reached(sfc_generator *g, int64_t tick, int64_t *wait_us,
                             sfc_error *err) {
  refresh(g);
  if (tick <= g->fence.limit) return SFC_RETRY;
  char node[SFC_NODE_TEXT_MAX];
  sfc_node_text(&g->layout, &g->node, node, sizeof node);
  if (g->fence.lost)
    return sfc_fail(err, SFC_LEASE_EXPIRED,
                    "the lease of node value %s was taken by another holder "
                    "after it expired: this generator issues no more IDs — "
                    "create a new one (a new lease)",
                    node);
  if (sfc_monotonic_us() >= g->fence.deadline_us)
    return sfc_fail(err, SFC_LEASE_EXPIRED,
                    "the lease of node value %s may have expired: no renewal "
                    "reached the database in time, so no ID is issued; "
                    "generation resumes by itself once a renewal succeeds",
                    node);
  /* Ahead of the horizon written: the renewal that moves it is asked for
   * now, and the call waits for it within the deadline. */
  atomic_store(&g->fence.wanted, true);
  *wait_us = 1000;
  return SFC_WAIT;
}
