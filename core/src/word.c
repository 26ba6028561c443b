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

/* Starts after everything a previous holder may have issued under the
 * clock value in force (its mark, and that value's last tick: the records
 * merged by clock value), and after the tick the clock is in now: a holder
 * nobody knows of (another mount namespace, the guard off, a reboot) may
 * have issued in it. The start's tick counts as used up, so the next ID is
 * later. */
void sfc_word_load(sfc_generator *g, const sfc_saved *saved) {
  memcpy(g->last, saved->last, sizeof g->last);
  int64_t t = saved->mark;
  if (saved->last[saved->clock] > t) t = saved->last[saved->clock];
  if (t < 0) t = 0;
  g->known_word =
      sfc_word(&g->pack, (uint64_t)t, saved->clock, g->pack.seq_max);
  const int64_t since = sfc_generator_now_us(g) - g->epoch_us;
  const int64_t now = since < 0 ? -1 : since / g->unit_us;
  if (now > t && (uint64_t)now <= g->pack.time_max) t = now;
  const uint64_t w =
      sfc_word(&g->pack, (uint64_t)t, saved->clock, g->pack.seq_max);
  g->start_word = w;
  atomic_store(&g->word, w);
  g->phantom = g->pack.seq_max - sfc_seq_start(g, (uint64_t)t) + 1;
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

void sfc_clock_resume(sfc_generator *g) {
  const sfc_packing *p = &g->pack;
  sfc_mutex_lock(&g->lock);
  if (atomic_load(&g->clock_handed)) {
    for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
      if (g->last[c] < g->handed_last[c]) g->last[c] = g->handed_last[c];
    /* The caller's timeline stands where it is past what was handed over
     * (under the handed clock value, past its word; under another, past
     * that value's last tick and the handed tick); else the word moves up
     * to the handed one, the caller's ticks kept in the clock table. */
    const uint64_t h = g->handed_word, hc = sfc_word_clock(p, h);
    const int64_t ht = (int64_t)sfc_word_time(p, h);
    uint64_t w = atomic_load(&g->word);
    for (;;) { /* other threads may issue at their own times meanwhile */
      const uint64_t c = sfc_word_clock(p, w);
      const int64_t t = (int64_t)sfc_word_time(p, w);
      if (c == hc ? w >= h : t > ht && g->last[c] < t) break;
      if (atomic_compare_exchange_weak(&g->word, &w, h)) {
        if (g->last[c] < t) g->last[c] = t;
        atomic_fetch_add_explicit(&g->issued_closed,
                                  sfc_word_seq(p, w) -
                                      sfc_seq_start(g, (uint64_t)t) + 1,
                                  memory_order_relaxed);
        g->phantom += p->seq_max - sfc_seq_start(g, (uint64_t)ht) + 1;
        break;
      }
    }
    atomic_store(&g->clock_handed, false);
    sfc_mark_update(g);
  }
  sfc_mutex_unlock(&g->lock);
}

sfc_status sfc_start_caller_timed(sfc_generator *g, uint64_t seen,
                                  sfc_error *err) {
  sfc_mutex_lock(&g->lock);
  if (sfc_closed(g)) {
    sfc_mutex_unlock(&g->lock);
    return sfc_fail_closed(g, err);
  }
  const uint64_t fresh =
      g->has_state ? g->known_word : sfc_word(&g->pack, 0, 0, g->pack.seq_max);
  /* The clock's IDs still go on from what the start handed over: the mark
   * moves down before the word changes, so that a live call that meets the
   * fresh word meets the mark too and takes the clock's timeline back
   * (sfc_clock_resume, under this lock) rather than issue from that word. */
  atomic_store(&g->clock_handed, true);
  sfc_mark_update(g);
  if (!atomic_compare_exchange_strong(&g->word, &seen, fresh)) {
    atomic_store(&g->clock_handed, false); /* the clock issued first */
    sfc_mark_update(g);
  } else {
    g->handed_word = seen;
    memcpy(g->handed_last, g->last, sizeof g->handed_last);
    if (!g->has_state)
      for (unsigned c = 0; c < SFC_CLOCK_VALUES; c++)
        g->last[c] = SFC_NEVER;
    g->phantom =
        g->pack.seq_max - sfc_seq_start(g, sfc_word_time(&g->pack, fresh)) + 1;
  }
  g->start_word = 0;
  sfc_mutex_unlock(&g->lock);
  return SFC_OK;
}
