/* The host-wide name of a claim on Linux: an abstract UNIX socket
 * "@snowflake-c/claim/<hex>", bound and listening. An abstract name has no
 * file behind it, so no cleaner, folder, environment or user can move it;
 * its scope is the network namespace — every process of the host, or of
 * one pod or container with a network of its own — and the kernel lets go
 * of it when its last descriptor closes, at the latest when the process
 * dies. A bind that fails with EADDRINUSE means held, by whoever: abstract
 * names have no permissions, so a name taken by another user is refused
 * too, naming that user, never ignored. A contender learns who holds it by
 * connecting (SO_PEERCRED); a holder never accepts, so after SOMAXCONN
 * refusals its queue is full and it no longer answers — it still holds. */
#include "internal.h"

#if defined(__linux__) && !defined(SFC_SIM)

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

bool sfc_claim_by_file;

static socklen_t name_of(const char *hex, struct sockaddr_un *addr) {
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  int n = snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1,
                   "snowflake-c/claim/%s", hex);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

bool sfc_os_claim_holder(const char *hex, sfc_holder *who) {
  if (sfc_claim_by_file) return sfc_file_claim_holder(hex, who);
  struct sockaddr_un addr;
  socklen_t size = name_of(hex, &addr);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  struct ucred cred;
  socklen_t len = sizeof cred;
  bool known = connect(fd, (const struct sockaddr *)&addr, size) == 0 &&
               getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
               cred.pid > 0;
  close(fd);
  if (known) {
    who->pid = (long)cred.pid;
    who->uid = (long long)cred.uid;
  }
  return known;
}

/* The bound abstract names of the network namespace, as the kernel lists
 * them (every user's, every mount namespace's). */
sfc_status sfc_os_claim_each(void (*fn)(void *ctx, const char *hex), void *ctx,
                             sfc_error *err) {
  if (sfc_claim_by_file) return SFC_OK;
  FILE *f = fopen("/proc/net/unix", "re");
  if (!f)
    return sfc_claim_os_error(err, "@snowflake-c/claim/…",
                              "read /proc/net/unix", errno);
  static const char prefix[] = "@snowflake-c/claim/";
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *at = strstr(line, prefix);
    if (!at) continue;
    char *hex = at + sizeof prefix - 1;
    hex[strcspn(hex, " \n")] = '\0';
    fn(ctx, hex);
  }
  fclose(f);
  return SFC_OK;
}

sfc_status sfc_os_claim_take(const char *hex, sfc_fd *out, char *where,
                             size_t cap, bool *held, sfc_holder *who,
                             sfc_error *err) {
  if (sfc_claim_by_file)
    return sfc_file_claim_take(hex, out, where, cap, held, who, err);
  *held = false;
  snprintf(where, cap, "@snowflake-c/claim/%s", hex);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return sfc_claim_os_error(err, where, "socket", errno);
  struct sockaddr_un addr;
  socklen_t size = name_of(hex, &addr);
  if (bind(fd, (struct sockaddr *)&addr, size) != 0) {
    int e = errno;
    close(fd);
    if (e != EADDRINUSE) return sfc_claim_os_error(err, where, "bind", e);
    *held = true;
    sfc_os_claim_holder(hex, who);
    return SFC_OK;
  }
  /* Listening, never accepting: contenders read our credentials. */
  if (listen(fd, SOMAXCONN) != 0) {
    int e = errno;
    close(fd);
    return sfc_claim_os_error(err, where, "listen", e);
  }
  *out = fd;
  return SFC_OK;
}

void sfc_os_claim_release(const char *hex, sfc_fd fd) {
  if (sfc_claim_by_file) {
    sfc_file_claim_release(hex, fd);
    return;
  }
  sfc_fd_close(fd);
}

#else
typedef int sfc_claim_os_linux_unused; /* nothing to compile here */
#endif
