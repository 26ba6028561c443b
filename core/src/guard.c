/* The guard: a generator's node value claimed host-wide (claim.c), with or
 * without a state_dir — taken at creation; its hand-over record written
 * ahead of the IDs it covers (at the start, whenever the hot path needs a
 * tick past the record's mark, before the clock value moves); closed with
 * the exact last tick at the end; dropped in a forked child. Off, the
 * generator says so (sfc_generator_warning_at). */
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

/* sfc_claim_settle, once the generator is whole (under g->lock, which a
 * fork takes). */
sfc_status sfc_guard_settle(sfc_generator *g, sfc_error *err) {
  return g->guarded ? sfc_claim_settle(&g->claim, g, err) : SFC_OK;
}

void sfc_guard_describe(sfc_generator *g) {
  const unsigned next = !atomic_load(&g->guard_at);
  if (g->guarded)
    snprintf(g->guard[next], sizeof g->guard[next], "held: %s", g->claim.where);
  else
    snprintf(g->guard[next], sizeof g->guard[next], "off");
  atomic_store(&g->guard_at, next);
}

void sfc_mark_update(sfc_generator *g) {
  sfc_step(); /* a live call may meet the word changed before its mark */
  int64_t m = g->has_state ? atomic_load(&g->state_mark) : INT64_MAX;
  if (g->guarded && g->handover_mark < m) m = g->handover_mark;
  if (g->fence.on && g->fence.limit < m) m = g->fence.limit;
  /* Until the clock's first call takes back what was handed over. */
  if (atomic_load(&g->clock_handed)) m = -1;
  const uint64_t word = m < 0 ? 0
                        : (uint64_t)m >= g->pack.time_max
                            ? UINT64_MAX
                            : (uint64_t)(m + 1) << g->pack.time_shift;
  atomic_store(&g->mark_word, word);
  sfc_step();
  atomic_store(&g->mark, m);
}

/* The generator's tick now, on its own clock (0 before the epoch). */
static int64_t now_tick(const sfc_generator *g) {
  int64_t since = sfc_generator_now_us(g) - g->epoch_us;
  return since < 0 ? 0 : since / g->unit_us;
}

/* A mark a reserve ahead of `tick` (and of the clock), never past the time
 * field. */
static int64_t ahead(const sfc_generator *g, int64_t tick) {
  const int64_t now = now_tick(g);
  int64_t mark = (tick > now ? tick : now) + g->handover_reserve;
  if ((uint64_t)mark > g->pack.time_max) mark = (int64_t)g->pack.time_max;
  return mark;
}

/* The record ahead: `clock` in use up to `mark`, the other clock values as
 * far as g->last says. */
static sfc_status write_ahead(sfc_generator *g, uint64_t clock, int64_t mark,
                              sfc_error *err) {
  sfc_saved s;
  sfc_saved_clear(&s);
  memcpy(s.last, g->last, sizeof s.last);
  s.clock = clock;
  s.mark = mark;
  return sfc_claim_write(&g->claim, g, &s, false, err);
}

sfc_status sfc_guard_start(sfc_generator *g, sfc_error *err) {
  if (!g->guarded) return SFC_OK;
  const uint64_t w = atomic_load(&g->word);
  const int64_t mark = ahead(g, (int64_t)sfc_word_time(&g->pack, w));
  sfc_status st = write_ahead(g, sfc_word_clock(&g->pack, w), mark, err);
  if (st != SFC_OK) return st;
  g->handover_mark = mark;
  sfc_mark_update(g);
  return SFC_OK;
}

sfc_status sfc_guard_advance(sfc_generator *g, int64_t tick, sfc_error *err) {
  if (!g->guarded || tick <= g->handover_mark) return SFC_OK;
  /* The clock value switches under g->lock only: the word's is the one in
   * force. */
  const uint64_t clock = sfc_word_clock(&g->pack, atomic_load(&g->word));
  const int64_t mark = ahead(g, tick);
  sfc_status st = write_ahead(g, clock, mark, err);
  if (st != SFC_OK) return st;
  g->handover_mark = mark;
  sfc_mark_update(g);
  return SFC_OK;
}

sfc_status sfc_guard_move(sfc_generator *g, uint64_t old_clock, int64_t limit,
                          uint64_t clock, int64_t tick, sfc_error *err) {
  if (!g->guarded) return SFC_OK;
  const int64_t exact = g->last[old_clock], mark = ahead(g, tick);
  if (g->last[old_clock] < limit) g->last[old_clock] = limit;
  sfc_status st = write_ahead(g, clock, mark, err);
  g->last[old_clock] = exact;
  if (st == SFC_OK) g->handover_mark = mark;
  return st;
}

/* What was issued under the value: the last tick and the clock value in
 * force (where a successor goes on), and each clock value's last tick
 * (which it must not reuse below). */
void sfc_generator_issued(const sfc_generator *g, sfc_saved *out) {
  const uint64_t w = sfc_word_last(g);
  const int64_t t = (int64_t)sfc_word_time(&g->pack, w);
  sfc_saved_clear(out);
  memcpy(out->last, g->last, sizeof out->last);
  out->clock = sfc_word_clock(&g->pack, w);
  if (out->last[out->clock] < t) out->last[out->clock] = t;
  out->mark = t;
}

void sfc_guard_release(sfc_generator *g) {
  if (g->pid != sfc_os_pid()) {
    sfc_guard_drop(g);
    return;
  }
  /* IDs at a caller's own times cannot be told from the others in the
   * word: the record written ahead, which covers every one the clock
   * gave, stands then; so it does for a generator that never started. */
  if (!g->started || atomic_load(&g->injected)) {
    sfc_claim_release(&g->claim, g, NULL);
    return;
  }
  sfc_saved last;
  sfc_generator_issued(g, &last);
  sfc_claim_release(&g->claim, g, &last);
}

void sfc_guard_drop(sfc_generator *g) {
  if (g->shared)
    sfc_claim_drop_copies(&g->claim);
  else
    sfc_claim_drop(&g->claim);
}
