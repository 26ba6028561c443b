/* The host-wide name of a claim where there are no abstract sockets (macOS,
 * the BSDs): a lock file "snowflake-c-<hex>.claim" in the host-wide records
 * folder (macOS: /Users/Shared, root's, sticky and never swept), held with
 * flock, which the kernel releases when the process dies. Its limits, as
 * documented: the folder is a path, so a chroot or a container sees another
 * one, and root or a cleaner that deletes the file under a live holder lets
 * a second one in; a file left by a crash of another user cannot be removed by
 * us (the sticky bit), so it is refused, naming its owner, until that user or
 * root removes it; and we never lock another user's file, since its owner
 * could delete it under us and let a third process in. On Linux the
 * abstract socket is used instead; this one is compiled there too, for its
 * tests (sfc_claim_by_file). */
#include "internal.h"

/* Written on the file primitives of os.h alone, so that the simulator
 * (SFC_SIM) runs this file as it ships. */
#if !defined(_WIN32) && !defined(__wasm__)

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void file_name(const char *hex, char *buf, size_t cap) {
  snprintf(buf, cap, "snowflake-c-%s.claim", hex);
}

/* The pid its holder wrote, while that process lives, else 0: a file whose
 * writer is gone may still be locked for a moment by another user's look
 * at it (foreign(), on a file left by a crash), and a silent holder is
 * looked at again where a named one refuses. */
static long pid_in(sfc_fd fd) {
  char text[32];
  size_t n;
  long pid = 0;
  if (sfc_file_read_fd(fd, "", text, sizeof text, &n, NULL) != SFC_OK || n == 0)
    return 0;
  return sscanf(text, "pid %ld", &pid) == 1 && pid > 0 &&
                 sfc_os_process_token(pid) != 0
             ? pid
             : 0;
}

sfc_status sfc_claim_os_error(sfc_error *err, const char *where,
                              const char *what, int e) {
  return sfc_fail(
      err, SFC_STATE_ERROR, "cannot take the host-wide claim %s (%s: %s)%s",
      where, what, strerror(e),
      e == EMFILE || e == ENFILE ? ": raise the limit on open files (ulimit -n)"
                                 : "");
}

/* A claim file that is not ours: held by its owner, or left by one. */
static sfc_status foreign(const sfc_dir *dir, const char *name,
                          const char *where, bool *held, sfc_holder *who,
                          sfc_error *err) {
  sfc_fd fd;
  long long uid;
  sfc_file_id id;
  int e = sfc_file_open_at(dir, name, false, &fd);
  if (e != 0 || !sfc_file_regular(fd, &uid, &id)) {
    sfc_fd_close(fd);
    if (e == 0 || e == ELOOP || e == ENXIO)
      return sfc_fail(err, SFC_STATE_ERROR,
                      "%s is not a regular file: something else squats the "
                      "host-wide claim's name; remove it",
                      where);
    return sfc_claim_os_error(err, where, "open", e);
  }
  if (sfc_file_lock_now(fd) != 0) {
    *held = true;
    who->pid = pid_in(fd);
    who->uid = uid;
    sfc_fd_close(fd);
    return SFC_OK;
  }
  sfc_fd_close(fd);
  return sfc_fail(err, SFC_STATE_ERROR,
                  "the host-wide claim %s is a file of uid %u that no live "
                  "process holds (left by a crash): only its owner or root "
                  "can remove it, and until then no other user may take it",
                  where, (unsigned)uid);
}

sfc_status sfc_file_claim_take(const char *hex, sfc_fd *out, char *where,
                               size_t cap, bool *held, sfc_holder *who,
                               sfc_error *err) {
  char name[64], dir_path[64];
  sfc_dir dir;
  *held = false;
  file_name(hex, name, sizeof name);
  sfc_status st = sfc_records_dir_open(&dir, dir_path, sizeof dir_path, err);
  if (st != SFC_OK) return st;
  snprintf(where, cap, "%s/%s", dir_path, name);
  for (int attempt = 0; attempt < 16; attempt++) {
    sfc_fd fd;
    long long uid;
    sfc_file_id id, there;
    int e = sfc_file_open_at(&dir, name, true, &fd);
    if (e != 0 && e != EACCES && e != EPERM && e != ELOOP && e != ENXIO) {
      st = sfc_claim_os_error(err, where, "open", e);
      break;
    }
    if (e != 0 || !sfc_file_regular(fd, &uid, &id) || uid != sfc_os_uid()) {
      sfc_fd_close(fd);
      st = foreign(&dir, name, where, held, who, err);
      break;
    }
    e = sfc_file_lock_now(fd);
    if (e != 0) {
      *held = e == EWOULDBLOCK;
      who->pid = pid_in(fd);
      who->uid = uid;
      sfc_fd_close(fd);
      if (!*held) st = sfc_claim_os_error(err, where, "flock", e);
      break;
    }
    /* A lock on a file its last holder unlinked meanwhile guards nothing. */
    if (!sfc_file_id_at(&dir, name, &there) || there.ino != id.ino ||
        there.dev != id.dev) {
      sfc_fd_close(fd);
      continue;
    }
    char text[32];
    int k = snprintf(text, sizeof text, "pid %ld\n", sfc_os_pid());
    if (!sfc_file_set_text(fd, text, (size_t)k)) {
      st = sfc_claim_os_error(err, where, "write", errno);
      sfc_fd_close(fd);
      break;
    }
    *out = fd;
    break;
  }
  sfc_fd_close(dir.fd);
  return st;
}

bool sfc_file_claim_holder(const char *hex, sfc_holder *who) {
  char name[64], dir_path[64];
  sfc_dir dir;
  sfc_fd fd;
  long long uid;
  sfc_file_id id;
  file_name(hex, name, sizeof name);
  if (sfc_records_dir_open(&dir, dir_path, sizeof dir_path, NULL) != SFC_OK)
    return false;
  int e = sfc_file_open_at(&dir, name, false, &fd);
  sfc_fd_close(dir.fd);
  bool known =
      e == 0 && sfc_file_regular(fd, &uid, &id) && (who->pid = pid_in(fd)) > 0;
  if (known) who->uid = uid;
  sfc_fd_close(fd);
  return known;
}

/* Unlinked while still locked, and only if the name is still this file
 * (sfc_file_close_removing): a contender that locks the old file next
 * finds it unlinked and starts over. */
void sfc_file_claim_release(const char *hex, sfc_fd fd) {
  char name[64], dir_path[64];
  sfc_dir dir;
  file_name(hex, name, sizeof name);
  if (fd == SFC_NO_FD) return;
  if (sfc_records_dir_open(&dir, dir_path, sizeof dir_path, NULL) != SFC_OK) {
    sfc_fd_close(fd);
    return;
  }
  sfc_file_close_removing(&dir, name, fd);
  sfc_fd_close(dir.fd);
}

#if !defined(__linux__) && !defined(SFC_SIM)
/* Every claim file lives beside the hand-over records, which the records
 * folder shows. */
sfc_status sfc_os_claim_each(void (*fn)(void *ctx, const char *hex), void *ctx,
                             sfc_error *err) {
  (void)fn;
  (void)ctx;
  (void)err;
  return SFC_OK;
}

sfc_status sfc_os_claim_take(const char *hex, sfc_fd *out, char *where,
                             size_t cap, bool *held, sfc_holder *who,
                             sfc_error *err) {
  return sfc_file_claim_take(hex, out, where, cap, held, who, err);
}

bool sfc_os_claim_holder(const char *hex, sfc_holder *who) {
  return sfc_file_claim_holder(hex, who);
}

void sfc_os_claim_release(const char *hex, sfc_fd fd) {
  sfc_file_claim_release(hex, fd);
}
#endif

#else
typedef int sfc_claim_os_file_unused; /* nothing to compile here */
#endif
