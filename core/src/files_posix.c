/* The state folder's files on Linux and macOS: opened relative to the
 * folder's descriptor with O_NOFOLLOW, non-blocking (a FIFO planted there
 * must not hang us), regular files only; locks are flock(), which the kernel
 * releases when the process dies. */
#include "internal.h"

#if !defined(_WIN32)

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
  return sfc_fail(err, SFC_STATE_ERROR, "%s %s: %s", what, path, strerror(e));
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

sfc_status sfc_dir_open(const char *path, bool own, sfc_dir *out,
                        sfc_error *err) {
  const char *role = own ? "guard folder" : "state_dir";
  if (mkdir(path, own ? 0700 : 0755) != 0 && errno != EEXIST)
    return os_error(err,
                    own ? "cannot create guard folder"
                        : "cannot create state directory",
                    path, errno);
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    struct stat lsb;
    if (lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode))
      return sfc_fail(err, SFC_STATE_ERROR,
                      "%s %s is a symbolic link: give the folder's own path "
                      "(links are never followed in a %s)",
                      role, path, role);
    if (e == ENOTDIR)
      return sfc_fail(err, SFC_STATE_ERROR, "%s %s is not a directory", role,
                      path);
    return os_error(
        err, own ? "cannot open guard folder" : "cannot open state directory",
        path, e);
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return os_error(err, "cannot stat state directory", path, e);
  }
  /* The guard's folder is shared by the user's processes only: anyone
   * else who could write there could hold a value or free it. */
  if (own && sb.st_uid != geteuid()) {
    close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "guard folder %s belongs to uid %u, not to this "
                    "process's uid %u: give a folder of your own",
                    path, (unsigned)sb.st_uid, (unsigned)geteuid());
  }
  if (own && (sb.st_mode & (S_IWGRP | S_IWOTH))) {
    close(fd);
    return sfc_fail(err, SFC_STATE_ERROR,
                    "guard folder %s is writable by other users (mode %03o): "
                    "chmod go-w it or give a folder of your own",
                    path, (unsigned)(sb.st_mode & 07777));
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

size_t sfc_guard_dir_default(unsigned i, char *buf, size_t cap) {
  const char *runtime = getenv("XDG_RUNTIME_DIR"), *tmp = getenv("TMPDIR");
  const unsigned uid = (unsigned)geteuid();
  int n = 0;
  struct stat sb;
  if (i == 0 && runtime && runtime[0] == '/')
    n = snprintf(buf, cap, "%s/snowflake-c", runtime);
  else if (i <= 1 && stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode))
    n = snprintf(buf, cap, "/dev/shm/snowflake-c-%u", uid);
  else if (i <= 2)
    n = snprintf(buf, cap, "%s/snowflake-c-%u",
                 tmp && tmp[0] == '/' ? tmp : "/tmp", uid);
  return n > 0 && (size_t)n < cap ? (size_t)n : 0;
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
  *out = fd;
  return SFC_OK;
}

sfc_status sfc_file_try_lock(sfc_fd fd, const char *path, bool *held,
                             sfc_error *err) {
  *held = false;
  if (flock((int)fd, LOCK_EX | LOCK_NB) == 0) return SFC_OK;
  if (errno == EWOULDBLOCK) {
    *held = true;
    return SFC_OK;
  }
  return os_error(err, "cannot lock", path, errno);
}

bool sfc_file_set_text(sfc_fd fd, const char *text, size_t len) {
  return ftruncate((int)fd, 0) == 0 &&
         pwrite((int)fd, text, len, 0) == (ssize_t)len;
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

bool sfc_file_id_at(const sfc_dir *dir, const char *name, sfc_file_id *id) {
  struct stat sb;
  if (fstatat((int)dir->fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) return false;
  *id = id_of(&sb);
  return true;
}

sfc_status sfc_file_read_at(const sfc_dir *dir, const char *name,
                            const char *path, char *buf, size_t cap,
                            size_t *len, bool *missing, sfc_error *err) {
  *missing = false;
  *len = 0;
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
