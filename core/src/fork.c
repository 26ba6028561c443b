/* Fork detection. A generator used in a forked child would repeat its
 * parent's IDs: pool-mode generators take a fresh node value there, the
 * others refuse with SFC_GENERATOR_FORKED. A child drops every claim and
 * lock it inherited at once, in the fork handler: a helper process that
 * never uses the generator must not keep its parent's value held after the
 * parent is gone. */
#include "internal.h"

#include <stdio.h>

_Atomic uint64_t sfc_fork_generation;

static sfc_mutex registry_lock = SFC_MUTEX_INIT;
static sfc_generator *registry;
static sfc_once_flag installed = SFC_ONCE_INIT;

/* Every generator's lock is held across fork(), so that no child starts with
 * a lock taken by a thread that does not exist there, and so that what a
 * generator holds (changed only under that lock, from before it takes
 * anything until after it let go of everything) is whole in the child. A
 * shared generator's lock is its processes' and is left alone: what holds
 * its claim is set once, by its creator. */
static void prepare(void) {
  sfc_mutex_lock(&registry_lock);
  for (sfc_generator *g = registry; g; g = g->next_registered)
    if (!g->shared) sfc_mutex_lock(&g->lock);
}

static void parent(void) {
  for (sfc_generator *g = registry; g; g = g->next_registered)
    if (!g->shared) sfc_mutex_unlock(&g->lock);
  sfc_mutex_unlock(&registry_lock);
}

/* A child holds nothing of its parent's: a helper process never keeps a
 * value from its next holder (a shared generator's processes share the
 * generator, not its claim, which its creator holds). */
static void child(void) {
  atomic_fetch_add(&sfc_fork_generation, 1);
  for (sfc_generator *g = registry; g; g = g->next_registered) {
    sfc_guard_drop(g);
    if (g->shared) {
      sfc_fd_close(g->state.lock_fd);
      continue;
    }
    if (g->has_state) sfc_state_after_fork(g);
    sfc_mutex_unlock(&g->lock);
  }
  sfc_mutex_unlock(&registry_lock);
}

static void install(void) {
  sfc_os_atfork(prepare, parent, child);
}

void sfc_fork_register(sfc_generator *g) {
  sfc_once(&installed, install);
  sfc_mutex_lock(&registry_lock);
  g->next_registered = registry;
  registry = g;
  sfc_mutex_unlock(&registry_lock);
}

void sfc_fork_unregister(sfc_generator *g) {
  sfc_mutex_lock(&registry_lock);
  for (sfc_generator **p = &registry; *p; p = &(*p)->next_registered)
    if (*p == g) {
      *p = g->next_registered;
      break;
    }
  sfc_mutex_unlock(&registry_lock);
}

sfc_status sfc_check_fork(sfc_generator *g, sfc_error *err) {
  if (g->shared) return SFC_OK; /* its host's forks share it */
  sfc_mutex_lock(&g->lock);
  if (sfc_closed(g)) { /* no renewal: the word stays the poison */
    sfc_mutex_unlock(&g->lock);
    return sfc_fail_closed(err);
  }
  uint64_t now = atomic_load(&sfc_fork_generation);
  if (atomic_load(&g->forks_seen) == now) {
    sfc_mutex_unlock(&g->lock);
    return SFC_OK;
  }
  if (g->node.auto_slot < 0 || !g->has_state) {
    char node[SFC_NODE_TEXT_MAX];
    sfc_node_text(&g->layout, &g->node, node, sizeof node);
    sfc_mutex_unlock(&g->lock);
    return sfc_fail(err, SFC_GENERATOR_FORKED,
                    "this generator (node '%s') was created in process %ld and "
                    "is now used in forked process %ld, where its IDs would "
                    "repeat the parent's: create a new generator in the child "
                    "with another node value, or use auto with a state_dir "
                    "so that a child takes a fresh value by itself",
                    node, g->pid, sfc_os_pid());
  }
  /* Pool mode: drop the parent's lock and take a free value. */
  sfc_pool_release(g);
  sfc_saved saved;
  sfc_status st = sfc_pool_acquire(g, &saved, err);
  if (st == SFC_OK) {
    sfc_word_set_node(g);
    sfc_word_load(g, &saved);
    st = sfc_keeper_start(g, err);
  }
  if (st == SFC_OK) {
    g->pid = sfc_os_pid();
    atomic_store_explicit(&g->forks_seen, now, memory_order_release);
  }
  sfc_mutex_unlock(&g->lock);
  return st;
}
