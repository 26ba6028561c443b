/* state_dir on Windows: not yet. The lock and state files of state.c rest
 * on POSIX calls (openat without following links, flock, renameat); their
 * Windows side — CreateFileW that does not follow reparse points, LockFileEx,
 * MoveFileExW with MOVEFILE_REPLACE_EXISTING — is still to be written. Until
 * then a state_dir, and with it the pool (`auto`), is refused with a
 * StateError that says so, never ignored. */
#include "internal.h"

#if defined(_WIN32)

#include <stdlib.h>

sfc_status sfc_state_open(sfc_generator *g, const sfc_options *opts,
                          sfc_saved *saved, sfc_error *err) {
  (void)g;
  (void)saved;
  return sfc_fail(err, SFC_STATE_ERROR,
                  "state_dir %s: lock and state files are not supported on "
                  "Windows yet; give node values explicitly (or through "
                  "SNOWFLAKE_<FIELD>) and no state_dir",
                  opts->state_dir);
}

sfc_status sfc_state_acquire(sfc_generator *g, sfc_saved *saved,
                             sfc_error *err) {
  (void)g;
  (void)saved;
  return sfc_fail(err, SFC_STATE_ERROR,
                  "state_dir is not supported on Windows yet");
}

sfc_status sfc_state_write(sfc_generator *g, int64_t mark, uint64_t clock,
                           sfc_error *err) {
  (void)g;
  (void)mark;
  (void)clock;
  return sfc_fail(err, SFC_STATE_ERROR,
                  "state_dir is not supported on Windows yet");
}

sfc_status sfc_state_start_keeper(sfc_generator *g, sfc_error *err) {
  (void)g;
  (void)err;
  return SFC_OK;
}

void sfc_state_close(sfc_generator *g, bool clean) {
  (void)clean;
  free(g->state.dir);
  g->state.dir = NULL;
}

void sfc_state_after_fork(sfc_generator *g) {
  (void)g;
}

void sfc_state_release(sfc_generator *g) {
  (void)g;
}

#else
typedef int sfc_state_windows_unused; /* nothing to compile on this platform */
#endif
