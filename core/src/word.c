/* The state word outside the hot path: its packing, where a generator
 * starts from, the node bits it carries, and a new word installed by the
 * slow path. */
#include "internal.h"

#include <string.h>

void sfc_word_pack(const sfc_layout *layout, sfc_packing *p) {
  const sfc_field *tf = &layout->fields[0];
  const sfc_field *sf = &layout->fields[layout->seq_index];
  const sfc_field *cf =
      layout->clock_index >= 0 ? &layout->fields[layout->clock_index] : NULL;
  p->seq_max = sf->max;
  p->clock_max = cf ? cf->max : 0;
  p->time_max = tf->max;
  p->time_shift = tf->shift;
  p->seq_shift = sf->shift;
  p->clock_shift = cf ? cf->shift : 0;
  p->seq_one = UINT64_C(1) << sf->shift;
  p->keep_mask = ~((p->time_max << tf->shift) | (sf->max << sf->shift));
}

void sfc_word_set_node(sfc_generator *g) {
  g->pack.node_bits = sfc_node_bits(&g->layout, &g->node);
}

/* Starts from persisted (or fresh) state: the mark's tick counts as used up,
 * so the next ID is later than anything a previous run could have issued. */
void sfc_word_load(sfc_generator *g, const sfc_saved *saved) {
  memcpy(g->last, saved->last, sizeof g->last);
  uint64_t t = (uint64_t)saved->mark;
  atomic_store(&g->word, sfc_word(&g->pack, t, saved->clock, g->pack.seq_max));
  g->phantom = g->pack.seq_max - sfc_seq_start(g, t) + 1;
  atomic_store(&g->issued_closed, 0);
  atomic_store(&g->rollback_seen, -1);
}

uint64_t sfc_word_install(sfc_generator *g, uint64_t seen, uint64_t id) {
  /* Threads on the fast path may still issue within the old tick until
   * the word changes. */
  while (!atomic_compare_exchange_weak(&g->word, &seen, id)) {
  }
  const uint64_t t = sfc_word_time(&g->pack, seen);
  atomic_fetch_add_explicit(
      &g->issued_closed, sfc_word_seq(&g->pack, seen) - sfc_seq_start(g, t) + 1,
      memory_order_relaxed);
  return seen;
}
