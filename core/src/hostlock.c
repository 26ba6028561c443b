/* A host-wide name for a held node value that no file-system cleaner can
 * delete. The lock file in state_dir is the lock every platform has, but an
 * `rm` of the file or of the whole folder takes it away from a live holder;
 * this name stays until the holder's last descriptor closes (the kernel
 * closes it when the process dies).
 *
 * Linux: an abstract UNIX socket (no file behind it), bound to a hash of the
 * key and listening; a second bind fails with EADDRINUSE. Its scope is the
 * network namespace: the processes of one host or one pod, which is where
 * two holders of one value meet. Abstract names have no permissions, so a
 * name found taken is only believed when its listener runs as this user (or
 * root): another user squatting on it cannot lock anyone out, it only takes
 * this extra guard away (the lock file still decides). Elsewhere, or where
 * sockets are refused, there is no such name. */
#include "internal.h"

#include <errno.h>

#if defined(__linux__)
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The listener of a taken name: its pid if it runs as this user or root,
 * else 0 (a squatter, or nobody listening, or a full backlog). */
static long holder_of(const struct sockaddr_un *addr, socklen_t size) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return 0;
  long pid = 0;
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (connect(fd, (const struct sockaddr *)addr, size) == 0 &&
      getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
      (cred.uid == geteuid() || cred.uid == 0))
    pid = cred.pid > 0 ? (long)cred.pid : 1;
  close(fd);
  return pid;
}

/* The abstract name of a key. Two independent 64-bit hashes: a collision
 * would refuse a value that is free, never give out one that is held. */
static socklen_t name_of(const char *key, size_t len,
                         struct sockaddr_un *addr) {
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  int n = snprintf(
      addr->sun_path + 1, sizeof addr->sun_path - 1,
      "snowflake-c/%016llx%016llx",
      (unsigned long long)sfc_fnv1a(SFC_FNV_OFFSET, key, len),
      (unsigned long long)sfc_fnv1a(UINT64_C(0x84222325cbf29ce4), key, len));
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

long sfc_host_holder(const char *key, size_t len) {
  struct sockaddr_un addr;
  socklen_t size = name_of(key, len, &addr);
  return holder_of(&addr, size);
}

int sfc_host_lock(const char *key, size_t len, int *fd_out, long *holder) {
  *fd_out = -1;
  *holder = 0;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0; /* no sockets here (a sandbox): no name */
  struct sockaddr_un addr;
  socklen_t size = name_of(key, len, &addr);
  if (bind(fd, (struct sockaddr *)&addr, size) != 0) {
    int e = errno;
    close(fd);
    if (e != EADDRINUSE) return 0;
    *holder = holder_of(&addr, size);
    return *holder ? EWOULDBLOCK : 0;
  }
  /* Listening, never accepting: others can read our credentials. */
  if (listen(fd, 64) != 0) {
    close(fd);
    return 0;
  }
  *fd_out = fd;
  return 0;
}

void sfc_host_unlock(int fd) {
  if (fd >= 0) close(fd);
}

#else

int sfc_host_lock(const char *key, size_t len, int *fd_out, long *holder) {
  (void)key;
  (void)len;
  *fd_out = -1;
  *holder = 0;
  return 0;
}

long sfc_host_holder(const char *key, size_t len) {
  (void)key;
  (void)len;
  return 0;
}

void sfc_host_unlock(int fd) {
  (void)fd;
}

#endif
