/* The service's endpoints: a request in, a reply out. The JSON of the
 * core's tables (layouts, decoded IDs, errors) is the kit's, byte for byte
 * what the commands print. */
#include "cli.h"
#include "service.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char TEXT[] = "text/plain; charset=utf-8";
static const char JSON[] = "application/json";

/* The reply's body, from a buffer the kit wrote (taken over). */
static void take(reply *rp, unsigned status, const char *type, sfk_buffer *b) {
  if (b->failed) {
    sfk_buffer_free(b);
    rp->status = 500;
    rp->type = TEXT;
    rp->body = NULL;
    rp->len = 0;
    return;
  }
  rp->status = status;
  rp->type = type;
  rp->body = b->data;
  rp->len = b->len;
}

/* {"error":{"kind":KIND,"message":MESSAGE}} of an error that is the
 * service's, not the core's (the kit writes only the core's kinds). */
static void http_error(reply *rp, unsigned status, const char *kind,
                       const char *message) {
  sfk_buffer b = {0};
  sfk_sink out = sfk_buffer_sink(&b);
  out.write(out.ctx, "{\"error\":{\"kind\":", 17);
  sfk_json_text(&out, kind);
  out.write(out.ctx, ",\"message\":", 11);
  sfk_json_text(&out, message);
  out.write(out.ctx, "}}\n", 3);
  take(rp, status, JSON, &b);
}

/* The core's error: 400 for what the request gave, 503 (Retry-After) for
 * the generator refusing, logged. */
static void core_error(service *s, reply *rp, const sfc_error *err) {
  bool refusal =
      err->status != SFC_INVALID_ARGUMENT && err->status != SFC_INVALID_LAYOUT;
  if (refusal) {
    atomic_fetch_add(&s->m.refusals, 1);
    atomic_store(&s->refusing, true);
    fprintf(stderr, PROG ": serve: refused: %s: %s\n",
            sfc_status_name(err->status), err->message);
  }
  sfk_buffer b = {0};
  sfk_sink out = sfk_buffer_sink(&b);
  sfk_json_error(&out, err);
  out.write(out.ctx, "\n", 1);
  take(rp, refusal ? 503 : 400, JSON, &b);
  rp->retry_after = refusal;
}

static int hex_digit(char ch) {
  return ch >= '0' && ch <= '9'   ? ch - '0'
         : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
         : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                  : -1;
}

/* As libmicrohttpd unescapes, but "%00" stays as it is: the routes read C
 * strings, and a NUL must not cut an ID short ("5%00garbage" is no ID). */
size_t url_unescape(char *text) {
  char *w = text;
  for (const char *r = text; *r;) {
    int hi = r[0] == '%' ? hex_digit(r[1]) : -1;
    int lo = hi >= 0 ? hex_digit(r[2]) : -1;
    if (lo >= 0 && (hi | lo)) {
      *w++ = (char)(hi * 16 + lo);
      r += 3;
    } else {
      *w++ = *r++;
    }
  }
  *w = '\0';
  return (size_t)(w - text);
}

static bool wants_json(const request *rq) {
  return rq->accept && strstr(rq->accept, "application/json");
}

/* Compares without a time that depends on where they first differ. */
static bool same_secret(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  unsigned char diff = (unsigned char)(n != m);
  for (size_t i = 0; i < n; i++)
    diff |= (unsigned char)(a[i] ^ b[i < m ? i : 0]);
  return m && diff == 0;
}

static bool authorized(const service *s, const request *rq) {
  static const char bearer[] = "Bearer ";
  const char *a = rq->authorization;
  if (!s->token) return true;
  if (!a || strncmp(a, bearer, sizeof bearer - 1) != 0) return false;
  return same_secret(s->token, s->token_len, a + sizeof bearer - 1);
}

/* A count in 1..max: digits only. */
static bool read_count(const char *text, uint64_t max, uint64_t *out) {
  uint64_t v = 0;
  if (!text || !*text) return false;
  for (const char *p = text; *p; p++) {
    if (*p < '0' || *p > '9' || v > max) return false;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  if (v < 1 || v > max) return false;
  *out = v;
  return true;
}

/* One ID's text: decimal, or in `enc` (its default form: dec's plain
 * number, the others' fixed width). */
static size_t id_text(uint64_t id, bool formatted, sfc_encoding enc,
                      char *out) {
  if (formatted) return sfc_id_format(id, enc, 0, out, SFC_ENCODED_MAX);
  char digits[21];
  char *d = u64_to_text(id, digits + sizeof digits);
  size_t n = (size_t)(digits + sizeof digits - d);
  memcpy(out, d, n);
  return n;
}

/* /v1/id and /v1/ids: `n` IDs, one per line or in one JSON object. */
static void ids(service *s, const request *rq, reply *rp, uint64_t n,
                bool batch) {
  sfc_error err;
  sfc_encoding enc = SFC_ENCODING_DEC;
  bool formatted = rq->format != NULL;
  if (formatted && sfc_encoding_by_name(rq->format, strlen(rq->format), &enc,
                                        &err) != SFC_OK) {
    core_error(s, rp, &err);
    return;
  }
  uint64_t *got = malloc((size_t)n * sizeof *got);
  char *body = malloc((size_t)n * (SFC_ENCODED_MAX + 3) + 16);
  size_t filled = 0;
  if (!got || !body) {
    free(got);
    free(body);
    {
      http_error(rp, 500, "OutOfMemory", "the reply does not fit");
      return;
    }
  }
  if (sfc_next_ids(s->gen, got, (size_t)n, &filled, &err) != SFC_OK) {
    free(got);
    free(body);
    {
      core_error(s, rp, &err);
      return;
    }
  }
  atomic_store(&s->refusing, false);
  atomic_fetch_add(&s->m.ids_served, n);
  bool json = wants_json(rq);
  char *w = body;
  if (json) {
    memcpy(w, batch ? "{\"ids\":[" : "{\"id\":", batch ? 8 : 6);
    w += batch ? 8 : 6;
  }
  for (uint64_t i = 0; i < n; i++) {
    if (json && i) *w++ = ',';
    if (json) *w++ = '"';
    w += id_text(got[i], formatted, enc, w);
    if (json) *w++ = '"';
    if (!json) *w++ = '\n';
  }
  if (json) {
    memcpy(w, batch ? "]}\n" : "}\n", batch ? 3 : 2);
    w += batch ? 3 : 2;
  }
  free(got);
  rp->status = 200;
  rp->type = json ? JSON : TEXT;
  rp->body = body;
  rp->len = (size_t)(w - body);
}

/* A UUIDv7's canonical JSON, as `decode --from uuid7 --json` prints it. */
static void decode_uuid7(service *s, const char *text, reply *rp) {
  sfc_error err;
  sfc_uuid7 u;
  if (sfc_uuid7_parse(text, strlen(text), &u, &err) != SFC_OK) {
    core_error(s, rp, &err);
    return;
  }
  char line[SFC_UUID7_JSON_MAX];
  size_t n = sfc_uuid7_json(&u, line, sizeof line);
  sfk_buffer b = {0};
  sfk_sink out = sfk_buffer_sink(&b);
  out.write(out.ctx, line, n);
  out.write(out.ctx, "\n", 1);
  take(rp, 200, JSON, &b);
}

static void decode(service *s, const request *rq, const char *text, reply *rp) {
  if (rq->from && strcmp(rq->from, "uuid7") == 0) {
    decode_uuid7(s, text, rp);
    return;
  }
  sfc_error err;
  sfc_encoding from = SFC_ENCODING_DEC;
  uint64_t id;
  sfc_parts p;
  if (rq->from &&
      sfc_encoding_by_name(rq->from, strlen(rq->from), &from, &err) != SFC_OK) {
    strncat(err.message, ", or uuid7",
            sizeof err.message - strlen(err.message) - 1);
    core_error(s, rp, &err);
    return;
  }
  if (sfc_id_parse(text, strlen(text), from, &id, &err) != SFC_OK ||
      sfc_decode(s->layout, id, &p, &err) != SFC_OK) {
    core_error(s, rp, &err);
    return;
  }
  sfk_buffer b = {0};
  sfk_sink out = sfk_buffer_sink(&b);
  sfk_json_parts(&out, s->layout, &p);
  out.write(out.ctx, "\n", 1);
  take(rp, 200, JSON, &b);
}

static void layout(service *s, reply *rp) {
  sfk_buffer b = {0};
  sfk_sink out = sfk_buffer_sink(&b);
  sfk_json_layout(&out, s->layout);
  out.write(out.ctx, "\n", 1);
  take(rp, 200, JSON, &b);
}

static void metrics_page(service *s, reply *rp) {
  sfk_buffer b = {0};
  sfk_sink out = sfk_buffer_sink(&b);
  metrics_write(s, &out);
  take(rp, 200, "text/plain; version=0.0.4; charset=utf-8", &b);
}

/* Ready while the generator can issue: it has not refused since its last
 * IDs, and its clock is not behind its last tick by more than the strategy
 * takes in its stride (waiting max_wait, borrowing max_drift). The
 * strategies that carry on at once (clock, switch) are behind never. */
static bool ready(service *s) {
  if (atomic_load(&s->refusing) || !lease_ready()) return false;
  sfc_stats st;
  sfc_generator_stats(s->gen, &st);
  const char *rollback = sfc_stats_text(&st, SFC_STAT_ROLLBACK);
  if (strcmp(rollback, "clock") == 0 || strcmp(rollback, "switch") == 0)
    return true;
  int64_t now_ms = sfc_generator_now_us(s->gen) / 1000;
  return sfc_stats_int(&st, SFC_STAT_LAST_TIME_MS) - now_ms <=
         sfc_stats_int(&st, SFC_STAT_MAX_WAIT_MS) +
             sfc_stats_int(&st, SFC_STAT_MAX_DRIFT_MS);
}

static void plain(reply *rp, unsigned status, const char *text) {
  size_t n = strlen(text);
  rp->status = status;
  rp->type = TEXT;
  rp->body = malloc(n);
  rp->len = rp->body ? n : 0;
  if (rp->body) memcpy(rp->body, text, n);
}

void route(service *s, const request *rq, reply *rp) {
  static const char decode_prefix[] = "/v1/decode/";
  const char *path = rq->path;
  memset(rp, 0, sizeof *rp);
  bool probe = !strcmp(path, "/healthz") || !strcmp(path, "/readyz");
  bool known = probe || !strcmp(path, "/v1/id") || !strcmp(path, "/v1/ids") ||
               !strcmp(path, "/v1/layout") || !strcmp(path, "/metrics") ||
               !strncmp(path, decode_prefix, sizeof decode_prefix - 1);
  if (!known) {
    char message[256];
    snprintf(message, sizeof message,
             "no such resource: %.80s (GET /v1/id, /v1/ids, /v1/decode/ID, "
             "/v1/layout, /healthz, /readyz, /metrics)",
             path);
    {
      http_error(rp, 404, "NotFound", message);
      return;
    }
  }
  if (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD")) {
    http_error(rp, 405, "MethodNotAllowed", "only GET and HEAD are served");
    rp->allow = "GET, HEAD";
    return;
  }
  if (!probe && !authorized(s, rq)) {
    http_error(rp, 401, "Unauthorized",
               "this service requires Authorization: Bearer TOKEN");
    rp->www_authenticate = true;
    return;
  }
  if (!strcmp(path, "/healthz")) {
    plain(rp, 200, "ok\n");
    return;
  }
  if (!strcmp(path, "/readyz")) {
    bool ok = ready(s);
    plain(rp, ok ? 200 : 503,
          ok ? "ready\n" : "not ready: the generator refuses\n");
    return;
  }
  if (!strcmp(path, "/v1/id")) {
    ids(s, rq, rp, 1, false);
    return;
  }
  if (!strcmp(path, "/v1/ids")) {
    uint64_t n;
    if (!read_count(rq->count, s->max_count, &n)) {
      char message[120];
      snprintf(message, sizeof message,
               "count must be a whole number from 1 to %" PRIu64, s->max_count);
      sfc_error err = {SFC_INVALID_ARGUMENT, ""};
      snprintf(err.message, sizeof err.message, "%s", message);
      {
        core_error(s, rp, &err);
        return;
      }
    }
    {
      ids(s, rq, rp, n, true);
      return;
    }
  }
  if (!strcmp(path, "/v1/layout")) {
    layout(s, rp);
    return;
  }
  if (!strcmp(path, "/metrics")) {
    metrics_page(s, rp);
    return;
  }
  decode(s, rq, path + sizeof decode_prefix - 1, rp);
}
