/* The guard: a generator's node value claimed host-wide (claim.c), with or
 * without a state_dir — taken at creation, handed over and let go at the
 * end, dropped in a forked child. Off, the generator says so
 * (sfc_generator_warning). */
#include "internal.h"

#include <stdio.h>
#include <string.h>

sfc_status sfc_guard_take(sfc_generator *g, sfc_claim *c, uint64_t bits,
                          sfc_saved *saved, bool *held, sfc_holder *who,
                          sfc_error *err) {
  *held = false;
  sfc_claim_init(c);
  if (!g->guarded) return SFC_OK;
  sfc_saved handed;
  sfc_saved_clear(&handed);
  sfc_status st = sfc_claim_take(c, g, bits, &handed, held, who, err);
  if (st == SFC_OK && !*held) sfc_saved_merge(saved, &handed);
  return st;
}

/* What was issued under the value, as a state file says it: the last
 * tick and the clock value in force (where a successor goes on), and each
 * clock value's last tick (which it must not reuse below). */
static void issued(const sfc_generator *g, sfc_saved *out) {
  const uint64_t w = sfc_word_last(g);
  const int64_t t = (int64_t)sfc_word_time(&g->pack, w);
  memcpy(out->last, g->last, sizeof out->last);
  out->clock = sfc_word_clock(&g->pack, w);
  if (out->last[out->clock] < t) out->last[out->clock] = t;
  out->mark = t;
}

void sfc_guard_release(sfc_generator *g) {
  if (g->pid != sfc_os_pid()) {
    sfc_claim_drop(&g->claim);
    return;
  }
  sfc_saved last;
  issued(g, &last);
  /* Nothing issued yet, or at a caller's own times (its own to judge):
   * what the record held stays. */
  sfc_claim_release(&g->claim, g,
                    !g->started || atomic_load(&g->injected) ? NULL : &last);
}

void sfc_guard_drop(sfc_generator *g) {
  sfc_claim_drop(&g->claim);
}
