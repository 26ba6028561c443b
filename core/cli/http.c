/* The service's HTTP side on libmicrohttpd: its event loop (epoll, a pool
 * of threads), HTTP/1.1 keep-alive and pipelining, and its limits — the
 * connections at once, the memory of one connection (which bounds a
 * request's headers: 431 past it) and the idle timeout. Each request is
 * read into a `request`, answered by route() and counted. */
#define _POSIX_C_SOURCE 200809L

#include "service.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

/* The memory of one connection: its request line and headers must fit
 * (16 KiB, as Node.js's bound on headers). libmicrohttpd clears it after
 * each request: at 64 KiB the clearing took a fifth of the CPU time. */
#define CONNECTION_MEMORY (16 * 1024)

struct http_server {
  struct MHD_Daemon *daemon;
  service *s;
  MHD_socket quiesced; /* the listening socket, closed after the daemon */
};

static uint64_t now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* Marks a request as counted in flight (its req_cls). */
static int counted;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload,
                                  size_t *upload_size, void **req_cls) {
  service *s = cls;
  (void)version, (void)upload;
  if (!*req_cls) { /* the headers are in: the reply waits for the body */
    *req_cls = &counted;
    atomic_fetch_add(&s->in_flight, 1);
    return MHD_YES;
  }
  if (*upload_size) { /* a body is dropped as it comes: no route takes one */
    *upload_size = 0;
    return MHD_YES;
  }
  uint64_t start = now_us();
  request rq = {
      method,
      url,
      MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept"),
      MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"),
      MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "count"),
      MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "format"),
      MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "from"),
  };
  reply rp;
  route(s, &rq, &rp);
  struct MHD_Response *r = MHD_create_response_from_buffer(
      rp.len, rp.body ? rp.body : (void *)"",
      rp.body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (!r) {
    free(rp.body);
    return MHD_NO;
  }
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rp.type);
  if (rp.allow) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, rp.allow);
  if (rp.retry_after)
    MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
  if (rp.www_authenticate)
    MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                            "Bearer realm=\"snowflake-c\"");
  if (atomic_load(&s->stopping))
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  enum MHD_Result ok = MHD_queue_response(conn, rp.status, r);
  MHD_destroy_response(r);
  metrics_request(&s->m, rp.status, now_us() - start);
  return ok;
}

/* Called once for every request that reached on_request, whether its
 * reply went out whole or its connection broke. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode why) {
  service *s = cls;
  (void)conn, (void)why;
  if (*req_cls == &counted) {
    atomic_fetch_sub(&s->in_flight, 1);
    *req_cls = NULL;
  }
}

/* libmicrohttpd's unescape callback: url_unescape (routes.c), which the
 * fuzzer drives too. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *text) {
  (void)cls, (void)conn;
  return url_unescape(text);
}

/* Splits "HOST:PORT" or "[V6]:PORT" into host and port. */
static int split_listen(const char *listen, char *host, size_t host_cap,
                        const char **port) {
  const char *colon;
  size_t n;
  if (listen[0] == '[') {
    const char *close = strchr(listen, ']');
    if (!close || close[1] != ':') return -1;
    n = (size_t)(close - listen - 1);
    memcpy(host, listen + 1, n < host_cap ? n : 0);
    colon = close + 1;
  } else {
    colon = strrchr(listen, ':');
    if (!colon || strchr(listen, ':') != colon) return -1;
    n = (size_t)(colon - listen);
    memcpy(host, listen, n < host_cap ? n : 0);
  }
  if (n == 0 || n >= host_cap || !colon[1]) return -1;
  host[n] = '\0';
  for (const char *p = colon + 1; *p; p++)
    if (*p < '0' || *p > '9') return -1;
  *port = colon + 1;
  return 0;
}

/* The address of the listening socket, as "HOST:PORT" or "[V6]:PORT". */
static void bound_address(struct MHD_Daemon *d, char *out, size_t cap) {
  const union MHD_DaemonInfo *info =
      MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  char host[64], port[16];
  if (!info ||
      getsockname(info->listen_fd, (struct sockaddr *)&ss, &len) != 0 ||
      getnameinfo((struct sockaddr *)&ss, len, host, sizeof host, port,
                  sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    snprintf(out, cap, "?");
    return;
  }
  snprintf(out, cap, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host,
           port);
}

http_server *http_start(service *s, const char *listen, unsigned threads,
                        char *bound, size_t bound_cap, char *why,
                        size_t why_cap) {
  char host[256];
  const char *port;
  if (split_listen(listen, host, sizeof host, &port) != 0 ||
      strtol(port, NULL, 10) > 65535) {
    snprintf(why, why_cap,
             "--listen '%s' is not HOST:PORT or [IPV6]:PORT (port 0 to 65535)",
             listen);
    return NULL;
  }
  struct addrinfo hints, *ai;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int gai = getaddrinfo(host, port, &hints, &ai);
  if (gai != 0) {
    snprintf(why, why_cap, "--listen '%s': %s", listen, gai_strerror(gai));
    return NULL;
  }
  http_server *h = calloc(1, sizeof *h);
  if (!h) {
    freeaddrinfo(ai);
    snprintf(why, why_cap, "out of memory");
    return NULL;
  }
  h->s = s;
  h->quiesced = MHD_INVALID_SOCKET;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                   MHD_USE_ITC | MHD_USE_ERROR_LOG;
  if (ai->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
  /* A pool of threads, or (one thread) the polling thread alone: the
   * library refuses a pool of one. */
  struct MHD_OptionItem pool[] = {
      {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)threads, NULL},
      {MHD_OPTION_END, 0, NULL}};
  h->daemon = MHD_start_daemon(
      flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
      MHD_OPTION_ARRAY, threads > 1 ? pool : pool + 1,
      MHD_OPTION_CONNECTION_LIMIT, s->max_connections,
      MHD_OPTION_CONNECTION_TIMEOUT, s->idle_timeout_s,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
      MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
      MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
  freeaddrinfo(ai);
  if (!h->daemon) {
    snprintf(why, why_cap,
             "cannot listen on %s (in use, or not an address of this host)",
             listen);
    free(h);
    return NULL;
  }
  bound_address(h->daemon, bound, bound_cap);
  return h;
}

void http_quiesce(http_server *h) {
  h->quiesced = MHD_quiesce_daemon(h->daemon);
}

void http_stop(http_server *h) {
  MHD_stop_daemon(h->daemon);
  if (h->quiesced != MHD_INVALID_SOCKET) close(h->quiesced);
  free(h);
}
