/* libFuzzer harness: the ID service's request path without a socket —
 * what core/cli/http.c hands to route() (core/cli/routes.c): the method,
 * the URL's path and query values unescaped by url_unescape, and the
 * Accept and Authorization headers.
 *
 * Input: lines "METHOD\nTARGET\nACCEPT\nAUTHORIZATION" (a missing line is
 * a header not sent). TARGET is split at its first '?' and its query at
 * '&' and '=' as libmicrohttpd splits them (the first value of a name
 * wins); the split itself is libmicrohttpd's, not ours, and is not fuzzed.
 * A TARGET starting with '!' is sent to a service that requires the token
 * "s3cret". One generator (default preset, worker 1, no guard: the claims
 * must not reach the machine) serves every input; --max-count is 64, so
 * that a run stays fast.
 *
 * Checks: every reply has a status the service answers, a content type,
 * and a body ending with a newline; every error is the JSON error object
 * with the headers its status needs (Allow, WWW-Authenticate,
 * Retry-After). */
#define _GNU_SOURCE
#include "fuzz.h"
#include "service.h"

#include "../c/set_options.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static service open_service, token_service;
static sfc_layout layout;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  /* The FILE pointer only: a refusal's log line goes nowhere; the
   * sanitizers keep writing to fd 2. */
  FILE *null_out = fopen("/dev/null", "w");
  if (!null_out) abort();
  stderr = null_out;
  sfc_error err;
  sfc_node_value node[] = {{"worker", 1, SFC_SOURCE_EXPLICIT}};
  sfc_options opts;
  sfc_options_init(&opts);
  sfc_options_set_nodes(&opts, node, 1);
  set_bool(&opts, SFC_OPTION_GUARD, false);
  sfc_generator *gen;
  if (sfc_layout_preset("default", &layout, &err) != SFC_OK ||
      sfc_generator_new(&layout, &opts, &gen, &err) != SFC_OK)
    abort();
  open_service.gen = gen;
  open_service.layout = sfc_generator_layout(gen);
  open_service.max_count = 64;
  token_service = open_service;
  token_service.token = "s3cret";
  token_service.token_len = 6;
  return 0;
}

/* The next line of `*text` (cut in place), or NULL past the last. */
static char *line(char **text) {
  if (!*text) return NULL;
  char *start = *text, *nl = strchr(start, '\n');
  if (nl) *nl = '\0';
  *text = nl ? nl + 1 : NULL;
  return start;
}

/* The first value of `name` in the query (cut in place), unescaped. */
static const char *query_value(char *query, size_t len, const char *name) {
  for (char *p = query; p && p < query + len;) {
    char *amp = strchr(p, '&');
    if (amp) *amp = '\0';
    char *eq = strchr(p, '=');
    if (eq) *eq = '\0';
    if (!strcmp(p, name)) {
      char *v = eq ? eq + 1 : p + strlen(p); /* "count": an empty value */
      url_unescape(v);
      return v;
    }
    if (eq) *eq = '=';
    if (amp) *amp = '&';
    p = amp ? amp + 1 : NULL;
  }
  return NULL;
}

static char *copy(const char *text) {
  return text ? strdup(text) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  char *rest = buf;
  const char *method = line(&rest);
  char *target = line(&rest);
  const char *accept = line(&rest), *authorization = line(&rest);
  if (!method || !target) {
    free(buf);
    return 0;
  }
  service *s = &open_service;
  if (target[0] == '!') {
    s = &token_service;
    target++;
  }
  char *query = strchr(target, '?');
  if (query) *query++ = '\0';
  url_unescape(target);
  /* Each lookup cuts the query in place: one copy per name. */
  char *q[3] = {copy(query), copy(query), copy(query)};
  size_t qlen = query ? strlen(query) : 0;
  request rq = {method,
                target,
                accept,
                authorization,
                q[0] ? query_value(q[0], qlen, "count") : NULL,
                q[1] ? query_value(q[1], qlen, "format") : NULL,
                q[2] ? query_value(q[2], qlen, "from") : NULL};
  reply rp;
  route(s, &rq, &rp);

  CHECK(rp.type != NULL);
  CHECK(rp.len == 0 || rp.body != NULL);
  static const unsigned statuses[] = {200, 400, 401, 404, 405, 500, 503};
  int known = 0;
  for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
    known |= rp.status == statuses[i];
  CHECK(known);
  if (rp.status != 500) CHECK(rp.len > 0 && rp.body[rp.len - 1] == '\n');
  bool probe = !strcmp(target, "/healthz") || !strcmp(target, "/readyz");
  if (rp.status >= 400 && rp.status != 500 && !probe) {
    CHECK(!strcmp(rp.type, "application/json"));
    CHECK(rp.len > 20 && !memcmp(rp.body, "{\"error\":{\"kind\":", 17));
  }
  CHECK((rp.status == 405) == (rp.allow != NULL));
  CHECK((rp.status == 401) == rp.www_authenticate);
  CHECK(!rp.retry_after || rp.status == 503);
  if (rp.status == 401) CHECK(s->token != NULL);

  free(rp.body);
  for (int i = 0; i < 3; i++)
    free(q[i]);
  free(buf);
  return 0;
}
