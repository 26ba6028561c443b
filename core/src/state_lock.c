/* The lock file of a node value: flock'd while a live process holds the
 * value (the kernel lets go when it dies), with the holder's pid inside for
 * messages. It keeps two processes off one value of the folder also where
 * the host-wide claim cannot see, as from another network namespace on a
 * shared volume. */
#include "internal.h"

#include <stdio.h>

static void find_holder(sfc_generator *g, const sfc_dir *dir) {
  sfc_file_name f;
  char text[64];
  size_t len;
  bool missing;
  long pid;
  sfc_state_file_name(g, ".lock", &f);
  g->state.holder = 0;
  if (sfc_file_read_at(dir, f.name, f.name, text, sizeof text, &len, &missing,
                       NULL, NULL) == SFC_OK &&
      !missing && sscanf(text, "pid %ld", &pid) == 1 && pid > 0)
    g->state.holder = pid;
}

sfc_status sfc_state_lock_at(sfc_generator *g, const sfc_dir *dir,
                             sfc_fd *lock_fd, bool *held, sfc_error *err) {
  sfc_file_name f;
  sfc_state_file_name(g, ".lock", &f);
  *held = false;
  for (int attempt = 0; attempt < 16; attempt++) {
    sfc_fd fd;
    sfc_status st = sfc_file_open_lock(dir, f.name, f.path, &fd, err);
    if (st != SFC_OK) return st;
    st = sfc_file_try_lock(fd, f.path, held, err);
    if (st != SFC_OK || *held) {
      sfc_fd_close(fd);
      if (*held) find_holder(g, dir);
      return st;
    }
    /* A lock on a file unlinked meanwhile guards nothing: take it again. */
    if (!sfc_file_is_at(dir, f.name, fd)) {
      sfc_fd_close(fd);
      continue;
    }
    g->state.holder = 0;
    char text[32];
    int k = snprintf(text, sizeof text, "pid %ld\n", sfc_os_pid());
    sfc_file_set_text(fd, text, (size_t)k); /* for messages only */
    *lock_fd = fd;
    return SFC_OK;
  }
  return sfc_fail(err, SFC_STATE_ERROR,
                  "lock file %s keeps being replaced while it is taken: "
                  "something removes files in the state_dir; keep it out of "
                  "temporary folders that cleaners sweep",
                  f.path);
}

sfc_status sfc_state_refuse_held(sfc_generator *g, sfc_error *err) {
  /* A holder that has just taken the lock names itself a moment later:
   * look again, 20 ms at most. */
  for (int i = 0; i < 20 && !g->state.holder; i++) {
    sfc_pause(1000);
    find_holder(g, &g->state.folder);
  }
  char text[SFC_NODE_TEXT_MAX];
  sfc_node_text(&g->layout, &g->node, text, sizeof text);
  /* The pid in the lock file is the holder's own: from another pid
   * namespace on a shared volume it may equal ours, so "this process" is
   * never said here (the claim, whose pid the kernel translates, says it). */
  char by[48] = "another live process";
  if (g->state.holder)
    snprintf(by, sizeof by, "live process %ld", g->state.holder);
  return sfc_fail(err, SFC_WORKER_UNAVAILABLE,
                  "node value %s is held by %s (lock file %s.lock): give "
                  "each process its own value, or use auto",
                  text, by, g->state.path);
}
