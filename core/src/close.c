/* A generator's close: the poison in its word, its keeper stopped, its
 * value let go with the hand-over written. Apart from generator.c because
 * fork.c closes an older generator that a newer one of its value takes
 * over (sfc_fork_take_over), and fork.c is drawn below generator.c. */
#include "internal.h"

/* The poison goes in under the lock that every slow step installing a
 * word holds, after `closed`: a step that takes the lock later, or a call
 * that finds the poison, sees `closed` and answers the closed error. A
 * compare-and-swap that won before the poison is part of the last word;
 * one after it fails. */
void sfc_generator_close(sfc_generator *gen) {
  if (!gen) return;
  const bool creator = gen->pid == sfc_os_pid();
  if (gen->shared && !creator) return; /* the creator lets go, once */
  sfc_mutex_lock(&gen->lock);
  if (sfc_closed(gen)) {
    sfc_mutex_unlock(&gen->lock);
    return;
  }
  atomic_store(&gen->closed, true);
  uint64_t w = atomic_load(&gen->word);
  while (!atomic_compare_exchange_weak(&gen->word, &w,
                                       sfc_word_poison(&gen->pack, w))) {
  }
  gen->last_word = w;
  sfc_mutex_unlock(&gen->lock);
  sfc_generator_let_go(gen, creator);
}

bool sfc_generator_closed(const sfc_generator *gen) {
  return gen && sfc_closed(gen);
}

void sfc_generator_let_go(sfc_generator *gen, bool creator) {
  sfc_keeper_stop(gen, creator);
  /* Let go under the lock the fork handlers take: a fork meanwhile leaves
   * nothing in the child. */
  sfc_mutex_lock(&gen->lock);
  if (gen->has_state)
    sfc_state_close(gen);
  else
    sfc_guard_release(gen);
  sfc_mutex_unlock(&gen->lock);
}
