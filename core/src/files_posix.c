/* The state folder's files on Linux and macOS: opened relative to the
 * folder's descriptor with O_NOFOLLOW, non-blocking (a FIFO planted there
 * must not hang us), regular files only; locks are flock(), which the kernel
 * releases when the process dies. */
#include "internal.h"

#if !defined(_WIN32) && !defined(__wasm__) && !defined(SFC_SIM)

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static sfc_status os_error(sfc_error *err, const char *what, const char *path,
                           int e) {
  return sfc_fail(err, SFC_STATE_ERROR, "%s %s: %s%s", what, path, strerror(e),
                  e == EMFILE || e == ENFILE
                      ? ": raise the limit on open files (ulimit -n)"
                      : "");
}

static sfc_file_id id_of(const struct stat *sb) {
  return (sfc_file_id){(uint64_t)sb->st_dev, (uint64_t)sb->st_ino};
}

static sfc_status not_regular(sfc_error *err, const char *path, mode_t mode) {
  const char *kind = S_ISLNK(mode)    ? "a symbolic link"
                     : S_ISFIFO(mode) ? "a FIFO"
                     : S_ISDIR(mode)  ? "a directory"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "a device";
  return sfc_fail(err, SFC_STATE_ERROR,
                  "%s is %s, not a regular file: a state_dir holds only the "
                  "regular files snowflake-c writes there (links are never "
                  "followed); remove it",
                  path, kind);
}

/* Says what a failed O_NOFOLLOW open met. */
static sfc_status open_error(sfc_error *err, int dir_fd, const char *name,
                             const char *what, const char *path, int e) {
  struct stat sb;
  if ((e == ELOOP || e == ENXIO || e == EISDIR) &&
      fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISREG(sb.st_mode))
    return not_regular(err, path, sb.st_mode);
  if (e == EACCES && fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      sb.st_uid != geteuid())
    return sfc_fail(err, SFC_STATE_ERROR,
                    "%s %s: it belongs to uid %u and this uid %u cannot read "
                    "it: the value starts once that user makes it readable "
                    "or removes it",
                    what, path, (unsigned)sb.st_uid, (unsigned)geteuid());
  return os_error(err, what, path, e);
}

/* A file just opened in the folder: a regular file, and ours when others
 * can write to the folder. */
static sfc_status check_file(const sfc_dir *dir, int fd, const char *path,
                             sfc_error *err) {
  struct stat sb;
  if (fstat(fd, &sb) != 0) return os_error(err, "cannot stat", path, errno);
  if (!S_ISREG(sb.st_mode)) return not_regular(err, path, sb.st_mode);
  if (dir->shared && sb.st_uid != geteuid())
    return sfc_fail(err, SFC_STATE_ERROR,
                    "%s belongs to uid %u, not to this process's uid %u, in "
                    "a state_dir that other users can write to: use a "
                    "folder of your own",
                    path, (unsigned)sb.st_uid, (unsigned)geteuid());
  return SFC_OK;
}

sfc_status sfc_dir_open(const char *path, sfc_dir *out, sfc_error *err) {
  if (mkdir(path, 0755) != 0 && errno != EEXIST)
    return os_error(err, "cannot create state directory", path, errno);
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    struct stat lsb;
    if (lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode))
      return sfc_fail(err, SFC_STATE_ERROR,
                      "state_dir %s is a symbolic link: give the folder's own "
                      "path (links are never followed in a state_dir)",
                      path);
    if (e == ENOTDIR)
      return sfc_fail(err, SFC_STATE_ERROR, "state_dir %s is not a directory",
                      path);
    return os_error(err, "cannot open state directory", path, e);
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return os_error(err, "cannot stat state directory", path, e);
  }
  if (sb.st_uid != geteuid() && sb.st_uid != 0) {
    close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state_dir %s belongs to uid %u, not to this process's "
                    "uid %u or root: its owner could replace the lock and "
                    "state files; use a folder of your own",
                    path, (unsigned)sb.st_uid, (unsigned)geteuid());
  }
  if ((sb.st_mode & S_IWOTH) && !(sb.st_mode & S_ISVTX)) {
    close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "state_dir %s is writable by every user (mode %03o) "
                    "without the sticky bit: anyone could replace its lock "
                    "and state files; chmod o-w it or use a folder of your "
                    "own",
                    path, (unsigned)(sb.st_mode & 07777));
  }
  out->fd = fd;
  out->id = id_of(&sb);
  out->shared = (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  return SFC_OK;
}

/* The host-wide folder of hand-over records: fixed paths, so that no
 * environment variable or option moves it — the first of them that is
 * root's (or ours) and that no other user can empty: closed to others'
 * writes, or sticky as /dev/shm and /tmp are made. */
sfc_status sfc_records_dir_open(sfc_dir *out, char *path, size_t cap,
                                sfc_error *err) {
#if defined(__APPLE__)
  /* /Users/Shared: root's and sticky, and no system cleaner sweeps it (the
   * daily clean of /private/tmp removes files unread for three days). */
  static const char *const places[] = {"/Users/Shared", "/private/tmp"};
#else
  static const char *const places[] = {"/dev/shm", "/tmp"};
#endif
  char why[320] = "";
  size_t used = 0;
  for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
    const char *place = places[i];
    int fd = open(place, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    const char *problem = NULL;
    if (fd < 0 || fstat(fd, &sb) != 0)
      problem = strerror(errno);
    else if (sb.st_uid != 0 && sb.st_uid != geteuid())
      problem = "owned by another user";
    else if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX))
      problem = "others may remove files there (no sticky bit)";
    if (!problem) {
      out->fd = fd;
      out->id = id_of(&sb);
      out->shared = (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0;
      snprintf(path, cap, "%s", place);
      return SFC_OK;
    }
    if (fd >= 0) close(fd);
    int k = snprintf(why + used, sizeof why - used, "%s%s: %s",
                     used ? "; " : "", place, problem);
    if (k > 0 && used + (size_t)k < sizeof why) used += (size_t)k;
  }
  return sfc_fail(err, SFC_STATE_ERROR,
                  "no host-wide folder for the claim's hand-over records "
                  "(%s): the guard needs one, root's and sticky as the "
                  "system makes it; or turn the guard off",
                  why);
}

sfc_status sfc_dir_each(const sfc_dir *dir, const char *prefix,
                        void (*fn)(void *ctx, const char *name), void *ctx,
                        sfc_error *err) {
  int fd = dup((int)dir->fd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    int e = errno;
    if (fd >= 0) close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "cannot list the folder of hand-over records: %s%s",
                    strerror(e),
                    e == EMFILE || e == ENFILE
                        ? ": raise the limit on open files (ulimit -n)"
                        : "");
  }
  size_t k = strlen(prefix);
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (strncmp(e->d_name, prefix, k) == 0) fn(ctx, e->d_name);
  closedir(d);
  return SFC_OK;
}

void sfc_os_user_tag(char *buf, size_t cap) {
  snprintf(buf, cap, "u%u", (unsigned)geteuid());
}

bool sfc_dir_is(const char *path, sfc_file_id id) {
  struct stat sb;
  return lstat(path, &sb) == 0 && (uint64_t)sb.st_dev == id.dev &&
         (uint64_t)sb.st_ino == id.ino;
}

char *sfc_path_absolute(const char *path) {
  return realpath(path, NULL);
}

void sfc_fd_close(sfc_fd fd) {
  if (fd >= 0) close((int)fd);
}

/* A file of a folder every user shares (the hand-over records) is read by
 * every user's generators: readable by all whatever the umask (PostgreSQL's
 * is 077). Another user's file is theirs to keep so. */
static void readable_by_all(const sfc_dir *dir, int fd) {
  struct stat sb;
  if (dir->shared && fstat(fd, &sb) == 0 && sb.st_uid == geteuid() &&
      (sb.st_mode & 0444) != 0444)
    fchmod(fd, (sb.st_mode & 07777) | 0444);
}

sfc_status sfc_file_open_lock(const sfc_dir *dir, const char *name,
                              const char *path, sfc_fd *out, sfc_error *err) {
  int dir_fd = (int)dir->fd;
  int fd = openat(dir_fd, name,
                  O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0)
    return open_error(err, dir_fd, name, "cannot open lock file", path, errno);
  sfc_status st = check_file(dir, fd, path, err);
  if (st != SFC_OK) {
    close(fd);
    return st;
  }
  readable_by_all(dir, fd);
  *out = fd;
  return SFC_OK;
}

int sfc_file_lock_now(sfc_fd fd) {
  return flock((int)fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
}

sfc_status sfc_file_try_lock(sfc_fd fd, const char *path, bool *held,
                             sfc_error *err) {
  const int e = sfc_file_lock_now(fd);
  *held = e == EWOULDBLOCK;
  if (e == 0 || *held) return SFC_OK;
  return os_error(err, "cannot lock", path, e);
}

void sfc_file_unlock(sfc_fd fd) {
  flock((int)fd, LOCK_UN);
}

/* Written first, cut to length after: a holder killed in between leaves
 * the whole new text, and its readers stop at its end. */
bool sfc_file_set_text(sfc_fd fd, const char *text, size_t len) {
  return pwrite((int)fd, text, len, 0) == (ssize_t)len &&
         ftruncate((int)fd, (off_t)len) == 0;
}

sfc_status sfc_file_overwrite(sfc_fd fd, const char *text, size_t len,
                              const char *path, sfc_error *err) {
  if (pwrite((int)fd, text, len, 0) == (ssize_t)len) return SFC_OK;
  return os_error(err, "cannot write", path, errno == 0 ? ENOSPC : errno);
}

void sfc_file_close_removing(const sfc_dir *dir, const char *name, sfc_fd fd) {
  /* Unlinked while still locked: a contender that locks the old file next
   * finds it unlinked and starts over. */
  if (sfc_file_is_at(dir, name, fd)) unlinkat((int)dir->fd, name, 0);
  close((int)fd);
}

bool sfc_file_is_at(const sfc_dir *dir, const char *name, sfc_fd fd) {
  struct stat a, b;
  return fstat((int)fd, &a) == 0 && a.st_nlink > 0 &&
         fstatat((int)dir->fd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
         a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int sfc_file_open_at(const sfc_dir *dir, const char *name, bool create,
                     sfc_fd *out) {
  int fd = openat((int)dir->fd, name,
                  (create ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW |
                      O_NONBLOCK | O_CLOEXEC,
                  0644);
  *out = fd < 0 ? SFC_NO_FD : (sfc_fd)fd;
  return fd < 0 ? errno : 0;
}

bool sfc_file_regular(sfc_fd fd, long long *uid, sfc_file_id *id) {
  struct stat sb;
  if (fstat((int)fd, &sb) != 0 || !S_ISREG(sb.st_mode)) return false;
  *uid = (long long)sb.st_uid;
  *id = id_of(&sb);
  return true;
}

bool sfc_file_id_at(const sfc_dir *dir, const char *name, sfc_file_id *id) {
  struct stat sb;
  if (fstatat((int)dir->fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) return false;
  *id = id_of(&sb);
  return true;
}

sfc_status sfc_file_read_at(const sfc_dir *dir, const char *name,
                            const char *path, char *buf, size_t cap,
                            size_t *len, bool *missing, char *owner,
                            sfc_error *err) {
  *missing = false;
  *len = 0;
  if (owner) owner[0] = '\0';
  int fd = openat((int)dir->fd, name,
                  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      *missing = true;
      return SFC_OK;
    }
    return open_error(err, (int)dir->fd, name, "cannot read state file", path,
                      errno);
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return os_error(err, "cannot stat", path, e);
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return not_regular(err, path, sb.st_mode);
  }
  /* Whose words these are: nobody's when others may write them. */
  if (owner && !(sb.st_mode & (S_IWGRP | S_IWOTH)))
    snprintf(owner, SFC_TAG_MAX, "u%u", (unsigned)sb.st_uid);
  size_t n = 0;
  while (n < cap - 1) {
    ssize_t k = read(fd, buf + n, cap - 1 - n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      int e = errno;
      close(fd);
      return os_error(err, "cannot read state file", path, e);
    }
    if (k == 0) break;
    n += (size_t)k;
  }
  close(fd);
  buf[n] = '\0';
  *len = n;
  return SFC_OK;
}

sfc_status sfc_file_read_fd(sfc_fd fd, const char *path, char *buf, size_t cap,
                            size_t *len, sfc_error *err) {
  size_t n = 0;
  while (n < cap - 1) {
    ssize_t k = pread((int)fd, buf + n, cap - 1 - n, (off_t)n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return os_error(err, "cannot read", path, errno);
    if (k == 0) break;
    n += (size_t)k;
  }
  buf[n] = '\0';
  *len = n;
  return SFC_OK;
}

sfc_status sfc_file_lock_held_at(const sfc_dir *dir, const char *name,
                                 const char *path, bool *held, sfc_error *err) {
  *held = false;
  int busy = 0;
  /* A holder that renews the file (sfc_file_renew_locked) lets go of the
   * old one's lock once the new one, locked, is in its place: a lock found
   * free on a file no longer at the name says nothing — look again. */
  for (int attempt = 0; attempt < 16 + 5; attempt++) {
    int fd = openat((int)dir->fd, name,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return SFC_OK;
      return open_error(err, (int)dir->fd, name, "cannot open", path, errno);
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
      const int e = errno;
      close(fd);
      return os_error(err, "cannot stat", path, e);
    }
    if (!S_ISREG(sb.st_mode)) {
      close(fd);
      return not_regular(err, path, sb.st_mode);
    }
    /* Shared: tests like this one, of many generators starting at once,
     * never find each other; only a holder's lock (exclusive) refuses it,
     * for good, or an owner taking its own, for a moment. */
    if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
      const int e = errno;
      close(fd);
      if (e != EWOULDBLOCK) return os_error(err, "cannot lock", path, e);
      if (++busy == 5) {
        *held = true;
        return SFC_OK;
      }
      sfc_pause(1000);
      continue;
    }
    const bool still = sfc_file_is_at(dir, name, (sfc_fd)fd);
    close(fd); /* the test's lock goes with it */
    if (still) return SFC_OK;
  }
  return sfc_fail(err, SFC_STATE_ERROR,
                  "%s keeps being replaced while it is read: something "
                  "else writes in the records folder",
                  path);
}

sfc_status sfc_file_renew_locked(const sfc_dir *dir, const char *name,
                                 const char *path, sfc_fd *fd, const char *data,
                                 size_t len, sfc_error *err) {
  const int dir_fd = (int)dir->fd;
  char tmp_name[128];
  snprintf(tmp_name, sizeof tmp_name, "%s.%ld.new", name, (long)getpid());
  unlinkat(dir_fd, tmp_name, 0); /* left by a crash of a process of ours */
  int nfd = openat(dir_fd, tmp_name,
                   O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (nfd < 0) return os_error(err, "cannot write", path, errno);
  readable_by_all(dir, nfd);
  /* Locked before it is visible: nobody takes it meanwhile. */
  int e = 0;
  if (flock(nfd, LOCK_EX | LOCK_NB) != 0)
    e = errno;
  else if (pwrite(nfd, data, len, 0) != (ssize_t)len)
    e = errno ? errno : ENOSPC;
  else if (renameat(dir_fd, tmp_name, dir_fd, name) != 0)
    e = errno;
  if (e) {
    close(nfd);
    unlinkat(dir_fd, tmp_name, 0);
    return os_error(err, "cannot write", path, e);
  }
  close((int)*fd);
  *fd = nfd;
  return SFC_OK;
}

sfc_status sfc_file_replace_at(const sfc_dir *dir, const char *name,
                               const char *path, const char *data, size_t len,
                               sfc_file_id *id, sfc_error *err) {
  const int dir_fd = (int)dir->fd;
  char tmp_name[sizeof((sfc_state *)0)->stem + 16], tmp[4200];
  snprintf(tmp_name, sizeof tmp_name, "%s.tmp", name);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  struct stat sb;
  if (fstatat(dir_fd, tmp_name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(sb.st_mode)) return not_regular(err, tmp, sb.st_mode);
    unlinkat(dir_fd, tmp_name, 0); /* left by a crash */
  }
  if (fstatat(dir_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISREG(sb.st_mode))
    return not_regular(err, path, sb.st_mode);
  /* O_EXCL: never an existing file, link or FIFO. */
  int fd = openat(dir_fd, tmp_name,
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return os_error(err, "cannot write state file", tmp, errno);
  size_t done = 0;
  while (done < len) {
    ssize_t k = write(fd, data + done, len - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      int e = k < 0 ? errno : ENOSPC;
      close(fd);
      unlinkat(dir_fd, tmp_name, 0);
      return os_error(err, "cannot write state file", tmp, e);
    }
    done += (size_t)k;
  }
  if (fsync(fd) != 0 || fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    unlinkat(dir_fd, tmp_name, 0);
    return os_error(err, "cannot sync state file", tmp, e);
  }
  close(fd);
  if (renameat(dir_fd, tmp_name, dir_fd, name) != 0) {
    int e = errno;
    unlinkat(dir_fd, tmp_name, 0);
    return os_error(err, "cannot replace state file", path, e);
  }
  fsync(dir_fd); /* the rename itself; some file systems refuse: harmless */
  *id = id_of(&sb);
  return SFC_OK;
}

#else
typedef int sfc_files_posix_unused; /* nothing to compile on this platform */
#endif
