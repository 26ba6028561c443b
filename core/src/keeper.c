/* The keeper thread of a generator with a state_dir: it keeps the
 * high-water mark reserved ahead of the clock, so that the hot path never
 * touches the disk, lets go of parked values once the clock has passed
 * them, and checks on every cycle that the files are still ours. A cleaner
 * that deletes the lock file or the folder under a live holder must not let
 * a second holder in: the keeper puts the files back when nobody else took
 * the value, and stops the generator when somebody did. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* How often the keeper checks that the files are still ours, at least. */
#define VERIFY_PERIOD_US 100000

/* Under g->lock (the keeper writes both fields under it). */
sfc_status sfc_keeper_failed(const sfc_generator *g, sfc_error *err) {
  sfc_status st = (sfc_status)g->state.error_status;
  if (st && err) {
    err->status = st;
    snprintf(err->message, sizeof err->message, "%s", g->state.error_message);
  }
  return st;
}

/* Whether the files are still ours: the folder at the path is the one we
 * opened, the lock file there is the one we hold, and the state file is the
 * one we wrote last (or gone). */
static bool still_ours(const sfc_generator *g) {
  const sfc_dir *dir = &g->state.folder;
  sfc_file_name f;
  sfc_file_id id;
  if (!sfc_dir_is(sfc_state_dir_path(g), dir->id)) return false;
  sfc_state_file_name(g, ".lock", &f);
  /* A shared generator's lock file is its creator's: its other processes
   * hold no descriptor of it (fork.c). */
  const bool member = g->shared && g->pid != sfc_os_pid();
  if (!member && !sfc_file_is_at(dir, f.name, g->state.lock_fd)) return false;
  sfc_state_file_name(g, ".state", &f);
  if (!sfc_file_id_at(dir, f.name, &id)) return false; /* removed: write it */
  return sfc_file_id_same(id, g->state.state_id);
}

/* The value was taken by another process while our files were gone: stop
 * at once, for good (a mark below every tick refuses every ID). */
static sfc_status lost(sfc_generator *g, const char *why, sfc_error *err) {
  char text[SFC_NODE_TEXT_MAX];
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  atomic_store(&g->state_mark, -1);
  sfc_mark_update(g);
  g->state.lost = true;
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "node value %s was lost: its lock file %s.lock was removed "
                  "and %s; this generator stops so as not to repeat its IDs "
                  "— keep state_dir out of folders that cleaners sweep (such "
                  "as /tmp)",
                  text, g->state.path, why);
}

/* The lock file at the path is held by another process. One that checks
 * our host-wide name holds it for a moment only, then lets go: try again at
 * the next cycle, without publishing a new mark. A holder that wrote its
 * state file, or that holds on (where no host-wide name can tell it that
 * the value is ours), has taken the value. */
static sfc_status contended(sfc_generator *g, const sfc_dir *dir,
                            sfc_error *err) {
  sfc_file_name f;
  sfc_file_id id;
  sfc_state_file_name(g, ".state", &f);
  if (sfc_file_id_at(dir, f.name, &id) &&
      !sfc_file_id_same(id, g->state.state_id))
    return lost(g, "another process holds it and wrote its state file", err);
  const int64_t now = sfc_monotonic_us();
  if (!g->state.contended_since) g->state.contended_since = now;
  if (!sfc_claim_held(&g->claim) || now - g->state.contended_since > 250000)
    return lost(g, "another process holds it", err);
  return SFC_RETRY;
}

/* Puts our files back at the path after a cleaner removed them, unless
 * another process took the value meanwhile. Writes the state with `mark`. */
static sfc_status retake(sfc_generator *g, int64_t mark, uint64_t clock,
                         sfc_error *err) {
  sfc_dir dir;
  sfc_status st = sfc_dir_open(sfc_state_dir_path(g), &dir, err);
  if (st != SFC_OK) return st;
  const bool same_dir = sfc_file_id_same(dir.id, g->state.folder.id);
  sfc_file_name f;
  sfc_state_file_name(g, ".lock", &f);
  sfc_fd lock_fd = SFC_NO_FD;
  if (!same_dir || !sfc_file_is_at(&dir, f.name, g->state.lock_fd)) {
    bool held;
    /* Our host-wide claim is still ours: not taken again. */
    st = sfc_state_lock_at(g, &dir, &lock_fd, &held, err);
    if (st == SFC_OK && held) st = contended(g, &dir, err);
    if (st != SFC_OK) {
      sfc_fd_close(dir.fd);
      return st;
    }
  }
  g->state.contended_since = 0;
  /* With our lock still in place nobody else could write the state file
   * (an operator did: ours replaces it). With the lock taken anew, a state
   * file we did not write means another holder was here meanwhile. */
  sfc_state_file_name(g, ".state", &f);
  sfc_file_id id;
  if (lock_fd != SFC_NO_FD && sfc_file_id_at(&dir, f.name, &id) &&
      !(same_dir && sfc_file_id_same(id, g->state.state_id))) {
    sfc_fd_close(lock_fd);
    sfc_fd_close(dir.fd);
    return lost(g, "another process wrote its state file", err);
  }
  st = sfc_state_file_write_at(g, &dir, mark, clock, err);
  if (st != SFC_OK) {
    sfc_fd_close(lock_fd);
    sfc_fd_close(dir.fd);
    return st;
  }
  if (lock_fd != SFC_NO_FD) {
    sfc_fd_close(g->state.lock_fd);
    g->state.lock_fd = lock_fd;
  }
  sfc_fd_close(g->state.folder.fd);
  g->state.folder = dir;
  return SFC_OK;
}

/* One cycle of the keeper, under g->lock: moves the mark ahead when it runs
 * short, and makes sure the files are still ours before the new mark is
 * published (a mark written into a file that another holder has read since
 * would not bind it). */
static void keep(sfc_generator *g) {
  if (g->state.lost) return;
  sfc_pool_unpark(g);
  const int64_t reserve = g->state.reserve_ticks;
  /* Ticks ahead of the clock are asked for through wanted_mark. The clock
   * field switches under g->lock only, so the word's is the newest. */
  uint64_t clock = sfc_word_clock(&g->pack, atomic_load(&g->word));
  int64_t base = sfc_state_now_tick(g);
  int64_t wanted = atomic_load(&g->wanted_mark);
  if (wanted > base) base = wanted;
  int64_t mark = atomic_load(&g->state_mark), next = mark;
  if (mark - base < reserve / 2 && mark < (int64_t)g->pack.time_max) {
    next = base + reserve;
    if ((uint64_t)next > g->pack.time_max) next = (int64_t)g->pack.time_max;
  }
  sfc_error e;
  sfc_status st = SFC_OK;
  if (next != mark) st = sfc_state_file_write(g, next, clock, &e);
  if (!still_ours(g)) st = retake(g, next, clock, &e);
  if (st == SFC_RETRY) return; /* contended: look again next cycle */
  if (st == SFC_OK) {
    if (next != mark) {
      atomic_store(&g->state_mark, next);
      sfc_mark_update(g);
    }
    g->state.error_status = 0;
  } else {
    g->state.error_status = e.status;
    snprintf(g->state.error_message, sizeof g->state.error_message, "%s",
             e.message);
  }
}

/* Keeps the mark at least half a reserve ahead of the clock and of every
 * tick the hot path wants. */
static void *keeper_main(void *arg) {
  sfc_generator *g = arg;
  int64_t period_us = g->state.reserve_ticks * g->unit_us / 4;
  if (period_us < 1000) period_us = 1000;
  if (period_us > VERIFY_PERIOD_US) period_us = VERIFY_PERIOD_US;
  sfc_mutex_lock(&g->lock);
  while (!g->state.stopping) {
    keep(g);
    sfc_os_cond_wait_us(&g->state.wake, &g->lock, period_us);
  }
  sfc_mutex_unlock(&g->lock);
  return NULL;
}

sfc_status sfc_keeper_start(sfc_generator *g, sfc_error *err) {
  g->state.stopping = false;
  int e = sfc_thread_start(&g->state.keeper, keeper_main, g);
  if (e != 0)
    return sfc_fail(err, SFC_STATE_ERROR,
                    "cannot start the state keeper thread: %s", strerror(e));
  g->state.keeper_running = true;
  return SFC_OK;
}

void sfc_keeper_stop(sfc_generator *g, bool clean) {
  if (g->state.keeper_running) {
    sfc_mutex_lock(&g->lock);
    g->state.stopping = true;
    sfc_cond_signal(&g->state.wake);
    sfc_mutex_unlock(&g->lock);
    sfc_thread_join(g->state.keeper);
    g->state.keeper_running = false;
  }
  if (clean && g->state.lock_fd != SFC_NO_FD && g->state.error_status == 0 &&
      !g->state.lost && still_ours(g)) {
    /* The exact last tick: a clean restart continues right after it. */
    uint64_t w = sfc_word_last(g);
    sfc_state_file_write(g, (int64_t)sfc_word_time(&g->pack, w),
                         sfc_word_clock(&g->pack, w), NULL);
  }
}

/* A shared generator has no keeper: the process that needs `tick` writes
 * the next mark itself, a reserve ahead. Its files must still be ours; a
 * process other than the creator cannot put them back (the descriptors
 * it would replace are the creator's), so it stops instead. */
static sfc_status keep_now(sfc_generator *g, uint64_t tick, sfc_error *err) {
  if (!still_ours(g))
    return lost(g, "a shared generator does not put its files back", err);
  int64_t next = sfc_state_now_tick(g);
  if ((int64_t)tick > next) next = (int64_t)tick;
  next += g->state.reserve_ticks;
  if ((uint64_t)next > g->pack.time_max) next = (int64_t)g->pack.time_max;
  uint64_t clock = sfc_word_clock(&g->pack, atomic_load(&g->word));
  sfc_status st = sfc_state_file_write(g, next, clock, err);
  if (st != SFC_OK) return st;
  atomic_store(&g->state_mark, next);
  sfc_mark_update(g);
  return SFC_RETRY;
}

sfc_status sfc_keeper_mark_reached(sfc_generator *g, uint64_t tick, bool live,
                                   int64_t *wait_us, sfc_error *err) {
  sfc_mutex_lock(&g->lock);
  if (sfc_closed(g)) {
    sfc_mutex_unlock(&g->lock);
    return sfc_fail_closed(g, err);
  }
  /* The record's mark is moved here, by the call that needs it: a write
   * to the records folder's memory, no keeper needed. */
  sfc_status st = live ? sfc_guard_advance(g, (int64_t)tick, err) : SFC_OK;
  /* A leased value's fence first: the state file's mark cannot lift it. */
  if (st == SFC_OK && g->fence.on && (int64_t)tick > g->fence.limit) {
    st = sfc_fence_reached(g, (int64_t)tick, wait_us, err);
    if (st != SFC_RETRY) {
      sfc_mutex_unlock(&g->lock);
      return st;
    }
    st = SFC_OK;
  }
  if (st == SFC_OK && (int64_t)tick <= atomic_load(&g->state_mark)) {
    sfc_mutex_unlock(&g->lock);
    return SFC_RETRY;
  }
  if (st == SFC_OK) st = sfc_keeper_failed(g, err);
  if (st == SFC_OK && g->shared) st = keep_now(g, tick, err);
  if (st != SFC_OK) {
    sfc_mutex_unlock(&g->lock);
    return st;
  }
  int64_t wanted = atomic_load(&g->wanted_mark);
  if ((int64_t)tick > wanted) atomic_store(&g->wanted_mark, (int64_t)tick);
  sfc_cond_signal(&g->state.wake);
  sfc_mutex_unlock(&g->lock);
  *wait_us = 1000;
  return SFC_WAIT;
}
