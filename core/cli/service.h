/* The ID service (snowflake-c serve): what its files share.
 *
 *   serve.c    the command: its options, the generator, the start and stop
 *              lines, the signals, the drain (built everywhere; without
 *              libmicrohttpd it says so and exits 1)
 *   http.c     the libmicrohttpd glue: the daemon, its limits, each request
 *              read into a `request` and its `reply` queued
 *   routes.c   the endpoints: a request in, a reply out, no HTTP library
 *   metrics.c  the counters, the latency histogram and /metrics
 *
 * Every file but serve.c is compiled only with libmicrohttpd found
 * (SNOWFLAKE_C_SERVE defined). */
#ifndef SNOWFLAKE_C_SERVICE_H
#define SNOWFLAKE_C_SERVICE_H

#include "snowflake_c.h"
#include "snowflake_c_kit.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The latency histogram's upper bounds, in microseconds (+Inf after). */
#define LATENCY_BUCKETS 12

/* The HTTP statuses the routes answer, counted by code. */
#define STATUS_KINDS 9

typedef struct metrics {
  atomic_uint_fast64_t requests[STATUS_KINDS];
  atomic_uint_fast64_t ids_served;
  atomic_uint_fast64_t refusals;
  atomic_uint_fast64_t latency[LATENCY_BUCKETS + 1]; /* not cumulative */
  atomic_uint_fast64_t latency_sum_us;
} metrics;

/* The service's state, shared by the daemon's threads. */
typedef struct service {
  sfc_generator *gen;
  const sfc_layout *layout;
  const char *token; /* NULL: none required */
  size_t token_len;
  uint64_t max_count;
  unsigned max_connections, idle_timeout_s;
  atomic_bool stopping;  /* every reply closes its connection */
  atomic_long in_flight; /* requests read and not yet fully answered */
  atomic_bool refusing;  /* the generator's last answer was a refusal */
  metrics m;
} service;

/* A request, as the routes see it: NULL for what was not given. */
typedef struct request {
  const char *method, *path;
  const char *accept, *authorization;
  const char *count, *format, *from; /* query arguments */
} request;

/* A reply: its status, content type and body (malloc'd, or NULL). */
typedef struct reply {
  unsigned status;
  const char *type;
  char *body;
  size_t len;
  const char *allow;     /* 405: the methods allowed */
  bool retry_after;      /* 503: Retry-After: 1 */
  bool www_authenticate; /* 401 */
} reply;

/* ---- routes.c ---------------------------------------------------------- */

/* Answers `rq` into `rp` (whose body the caller frees). The seam the
 * fuzzer (tests/fuzz/fuzz_routes.c) drives without a socket. */
void route(service *s, const request *rq, reply *rp);
/* Percent-decodes the path or a query value in place (libmicrohttpd's
 * unescape callback); returns the new length. */
size_t url_unescape(char *text);

/* ---- metrics.c --------------------------------------------------------- */

void metrics_request(metrics *m, unsigned status, uint64_t micros);
/* The Prometheus text of the service and its generator's stats. */
void metrics_write(service *s, const sfk_sink *out);

/* ---- http.c ------------------------------------------------------------ */

typedef struct http_server http_server;

/* Starts serving `s` on `listen` (HOST:PORT, [V6]:PORT) with a pool of
 * `threads`; writes the address bound ("127.0.0.1:8080", "[::1]:9000") to
 * `bound`. NULL with a message in `why` when it cannot. */
http_server *http_start(service *s, const char *listen, unsigned threads,
                        char *bound, size_t bound_cap, char *why,
                        size_t why_cap);
/* Stops accepting; the connections open go on. */
void http_quiesce(http_server *h);
/* Closes every connection and frees the server. */
void http_stop(http_server *h);

#endif
