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
 * refusals its queue is full and it no longer answers — it still holds.
 * One that does not answer (a full queue, or a name bound and never
 * listened on) is named by its owner's uid from the kernel's socket table
 * (sock_diag, Linux 5.3 and later). */
#include "internal.h"

#if defined(__linux__) && !defined(SFC_SIM)

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stddef.h>
#include <stdint.h>
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

/* The uid of the socket bound to `name` (`len` bytes of sun_path), from a
 * dump of the network namespace's UNIX sockets; false when the kernel does
 * not say. */
static bool owner_of(const char *name, size_t len, long long *uid) {
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return false;
  struct {
    struct nlmsghdr h;
    struct unix_diag_req r;
  } ask;
  memset(&ask, 0, sizeof ask);
  ask.h.nlmsg_len = sizeof ask;
  ask.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  ask.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  ask.r.sdiag_family = AF_UNIX;
  ask.r.udiag_states = UINT32_MAX;
  ask.r.udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_UID;
  struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
  bool found = false, done = false;
  if (sendto(fd, &ask, sizeof ask, 0, (struct sockaddr *)&kernel,
             sizeof kernel) != (ssize_t)sizeof ask)
    done = true;
  /* The kernel sizes a dump's datagrams to a page at first, and to the
   * reader's buffer after: 8 KiB, as libmnl reads them. */
  union {
    struct nlmsghdr h;
    char bytes[8192];
  } buf;
  while (!done) {
    ssize_t n = recv(fd, buf.bytes, sizeof buf.bytes, 0);
    if (n <= 0) break;
    /* NLMSG_OK and NLMSG_NEXT mix signed and unsigned lengths; the walk
     * is spelled out with sizes instead. */
    size_t left = (size_t)n;
    for (struct nlmsghdr *h = &buf.h; left >= sizeof *h &&
                                      h->nlmsg_len >= sizeof *h &&
                                      h->nlmsg_len <= left;) {
      size_t step = NLMSG_ALIGN(h->nlmsg_len);
      if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
        done = true;
        break;
      }
      const struct unix_diag_msg *m = NLMSG_DATA(h);
      int size = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof *m);
      bool named = false, owned = false;
      uint32_t u = 0;
      for (struct rtattr *a = (struct rtattr *)(void *)(m + 1); RTA_OK(a, size);
           a = RTA_NEXT(a, size)) {
        if (a->rta_type == UNIX_DIAG_NAME)
          named = RTA_PAYLOAD(a) == len && !memcmp(RTA_DATA(a), name, len);
        else if (a->rta_type == UNIX_DIAG_UID && RTA_PAYLOAD(a) >= sizeof u) {
          memcpy(&u, RTA_DATA(a), sizeof u);
          owned = true;
        }
      }
      if (named && owned) {
        *uid = (long long)u;
        found = true;
      }
      if (step >= left) break;
      left -= step;
      h = (struct nlmsghdr *)(void *)((char *)h + step);
    }
  }
  close(fd);
  return found;
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
    return true;
  }
  who->find = "ss -xlp | grep snowflake-c/claim";
  return owner_of(addr.sun_path, size - offsetof(struct sockaddr_un, sun_path),
                  &who->uid);
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
