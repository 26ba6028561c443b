/* Fork detection. A generator used in a forked child would repeat its
 * parent's IDs: pool-mode generators take a fresh node value there, the
 * others refuse with SFC_GENERATOR_FORKED. A child drops every claim and
 * lock it inherited at once, in the fork handler: a helper process that
 * never uses the generator must not keep its parent's value held after the
 * parent is gone. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

_Atomic uint64_t sfc_fork_generation;

static sfc_mutex registry_lock = SFC_MUTEX_INIT;
static sfc_generator *registry;
/* How many are in it, read without the lock: a process whose only one is
 * the generator being made (a contender, a successor) has nothing to
 * take over, and takes no lock to find that out. */
static _Atomic size_t registered;
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
  atomic_fetch_add(&registered, 1);
  sfc_mutex_unlock(&registry_lock);
}

void sfc_fork_unregister(sfc_generator *g) {
  sfc_mutex_lock(&registry_lock);
  for (sfc_generator **p = &registry; *p; p = &(*p)->next_registered)
    if (*p == g) {
      *p = g->next_registered;
      atomic_fetch_sub(&registered, 1);
      break;
    }
  sfc_mutex_unlock(&registry_lock);
}

/* Whether `a` and `b` issue the same IDs: one layout (spec and epoch) and
 * one node value. */
static bool same_ids(const sfc_generator *a, const sfc_generator *b) {
  char spec_a[SFC_SPEC_MAX], spec_b[SFC_SPEC_MAX];
  sfc_layout_spec(&a->layout, spec_a, sizeof spec_a);
  sfc_layout_spec(&b->layout, spec_b, sizeof spec_b);
  if (strcmp(spec_a, spec_b) != 0 || a->layout.epoch_ms != b->layout.epoch_ms ||
      a->node.count != b->node.count)
    return false;
  for (unsigned i = 0; i < a->node.count; i++)
    if (a->node.value[i] != b->node.value[i]) return false;
  return true;
}

/* Whether `older` may be taken over by `newer`, from what never changes
 * once made: made by this process (not inherited through fork), a fixed
 * value (a pool value is taken afresh, a leased one is the lease's), not
 * shared (it is its processes'), and the same IDs. */
static bool same_generator(const sfc_generator *older,
                           const sfc_generator *newer) {
  /* Made whole first (a creation under way writes what is read below),
   * and a fixed value: a pool generator's value and pid change. */
  return older != newer &&
         atomic_load_explicit(&older->ready, memory_order_acquire) &&
         !older->shared && !newer->shared && older->node.auto_slot < 0 &&
         newer->node.auto_slot < 0 && older->node.lease_slot < 0 &&
         newer->node.lease_slot < 0 && older->pid == sfc_os_pid() &&
         same_ids(older, newer);
}

/* Whether `older` (under its lock) holds what refused `newer`: the
 * host-wide claim, which named this process (both guarded), or the lock
 * file of one state_dir. A claim that named another process (one still
 * taking, ranked first), or newer's lock file held by another than older
 * while the claim named ours, would refuse newer again once older is
 * closed: older stays. */
static bool holds_what_refused(const sfc_generator *older,
                               const sfc_generator *newer,
                               bool locked_elsewhere) {
  /* One folder by its identity, not its path: a bind mount or a second
   * path to it holds the same lock files. */
  const bool one_folder =
      older->has_state && newer->has_state &&
      sfc_file_id_same(older->state.folder.id, newer->state.folder.id);
  if (newer->claim.refuser != 0)
    return newer->claim.refuser == sfc_os_pid() && older->guarded &&
           newer->guarded && (one_folder || !locked_elsewhere);
  return one_folder;
}

/* Whether the lock file of newer's value in its state_dir is held: taken
 * and let go at once to find out. Its holder is not an older generator of
 * the same folder (holds_what_refused takes that one over first): another
 * process, whatever pid its file says (from another pid namespace it may
 * be ours), or a generator of this one that no take-over closes. */
static bool locked_elsewhere(sfc_generator *newer) {
  sfc_fd fd = SFC_NO_FD;
  bool held = false;
  if (!newer->has_state || sfc_state_lock_at(newer, &newer->state.folder, &fd,
                                             &held, NULL) != SFC_OK)
    return false; /* the create's next take says what is wrong */
  if (!held) sfc_fd_close(fd);
  return held;
}

/* A cell or a reload run again creates the generator it created before,
 * which still holds the value: the older one is closed as by
 * sfc_generator_close (its hand-over written, so the newer starts after
 * its last ID) and says why to its later calls. Sharing one state between
 * the two handles instead would put a per-handle object between a binding
 * and the state word (one more dependent load in sfc_next), need
 * per-handle close in every binding, and still refuse when the options
 * differ, as a re-run cell's often do. Under registry_lock, so that a
 * concurrent sfc_generator_free of the older one (which unregisters under
 * it) cannot free it meanwhile; the close takes its lock after ours, the
 * order the fork handlers take them in, and its keeper never takes ours. */
bool sfc_fork_take_over(sfc_generator *newer, sfc_error *err) {
  bool closed = false;
  if (atomic_load(&registered) < 2) return false;
  const bool elsewhere =
      newer->claim.refuser == sfc_os_pid() && locked_elsewhere(newer);
  sfc_mutex_lock(&registry_lock);
  for (sfc_generator *g = registry; g && !closed; g = g->next_registered) {
    if (!same_generator(g, newer)) continue;
    sfc_mutex_lock(&g->lock); /* a close frees its state_dir's path */
    const bool open = atomic_load_explicit(&g->ready, memory_order_acquire) &&
                      !sfc_closed(g) && holds_what_refused(g, newer, elsewhere);
    if (open)
      sfc_node_text(&g->layout, &g->node, g->taken_over, sizeof g->taken_over);
    sfc_mutex_unlock(&g->lock);
    if (!open) continue;
    sfc_generator_close(g);
    closed = true;
  }
  sfc_mutex_unlock(&registry_lock);
  /* Closing this process's own holder would not help: the lock file's
   * holder is the one to name. */
  if (!closed && elsewhere) sfc_state_refuse_held(newer, err);
  return closed;
}

sfc_status sfc_check_fork(sfc_generator *g, sfc_error *err) {
  if (g->shared) return SFC_OK; /* its host's forks share it */
  sfc_mutex_lock(&g->lock);
  if (sfc_closed(g)) { /* no renewal: the word stays the poison */
    sfc_mutex_unlock(&g->lock);
    return sfc_fail_closed(g, err);
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
  if (st == SFC_OK) st = sfc_guard_settle(g, err);
  if (st == SFC_OK) {
    g->pid = sfc_os_pid();
    atomic_store_explicit(&g->forks_seen, now, memory_order_release);
  }
  sfc_mutex_unlock(&g->lock);
  return st;
}
