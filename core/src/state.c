/* A generator's state_dir, from creation to the end: the folder opened, a
 * value taken (pool.c), its keeper started (keeper.c); the last tick
 * written and every value let go at the end; what a forked child keeps.
 *
 * The files are trusted with uniqueness, so the folder is hostile ground:
 * every file is opened relative to the folder's descriptor, never through a
 * symbolic link, and only if it is a regular file (a FIFO would block, a
 * device would be written to); the folder must belong to us or root and be
 * closed to other users' writes unless sticky (files_*.c). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

sfc_status sfc_state_open(sfc_generator *g, const sfc_options *opts,
                          sfc_saved *saved, sfc_error *err) {
  const sfc_opts o = sfc_opts_of(opts);
  g->state.dir = strdup(o.state_dir);
  if (!g->state.dir) return sfc_fail(err, SFC_OUT_OF_MEMORY, "out of memory");
  const int64_t reserve_ms =
      sfc_option_ms(opts, SFC_OPTION_STATE_RESERVE, (sfc_rollback)o.rollback);
  g->state.reserve_ticks = reserve_ms * 1000 / g->unit_us;
  if (g->state.reserve_ticks < 2) g->state.reserve_ticks = 2;
  sfc_os_cond_init(&g->state.wake);
  sfc_status st = sfc_dir_open(g->state.dir, &g->state.folder, err);
  if (st != SFC_OK) return st;
  /* Checked and put back by its absolute path: a later chdir of the
   * process must not send the keeper to another folder. */
  g->state.dir_real = sfc_path_absolute(g->state.dir);
  return sfc_pool_acquire(g, saved, err);
}

void sfc_state_close(sfc_generator *g) {
  sfc_pool_release(g);
  sfc_fd_close(g->state.folder.fd);
  g->state.folder.fd = SFC_NO_FD;
  free(g->state.dir);
  free(g->state.dir_real);
  g->state.dir = NULL;
  g->state.dir_real = NULL;
}

void sfc_state_after_fork(sfc_generator *g) {
  g->state.keeper_running = false;
  sfc_os_cond_init(&g->state.wake);
  sfc_fd_close(g->state.lock_fd);
  g->state.lock_fd = SFC_NO_FD;
  sfc_pool_drop_parked(g);
}
