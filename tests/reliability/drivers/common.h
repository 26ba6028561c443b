/* Shared by the reliability drivers: collecting IDs, counting duplicates,
 * printing counters and the result line that tests/reliability/run reads.
 *
 * Result line: "RESULT ids=N faults=N dups=N expected=N unexpected=N ok=0|1
 * note=TEXT" — one per driver run, on standard output. */
#ifndef RELIABILITY_COMMON_H
#define RELIABILITY_COMMON_H

#define _GNU_SOURCE
#include "snowflake_c.h"

#include "../../c/set_options.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcntl.h>
#include <unistd.h>

typedef struct ids {
  uint64_t *v;
  size_t n, cap;
} ids;

static inline void ids_push(ids *s, uint64_t id) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 4096;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
    if (!s->v) {
      perror("realloc");
      exit(99);
    }
  }
  s->v[s->n++] = id;
}

static inline void ids_append(ids *s, const uint64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    ids_push(s, v[i]);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorts a copy and counts IDs that appear more than once. */
static inline size_t ids_dups(const uint64_t *v, size_t n) {
  if (n < 2) return 0;
  uint64_t *c = malloc(n * sizeof *c);
  if (!c) exit(99);
  memcpy(c, v, n * sizeof *c);
  qsort(c, n, sizeof *c, cmp_u64);
  size_t d = 0;
  for (size_t i = 1; i < n; i++)
    d += c[i] == c[i - 1];
  free(c);
  return d;
}

static inline bool ids_increasing(const uint64_t *v, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (v[i] <= v[i - 1]) return false;
  return true;
}

static inline int64_t mono_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline int64_t wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The wall clock's offset from the monotonic clock (which libfaketime
 * leaves alone), us: a step of the wall clock is the change of this value.
 * A reading interrupted for more than 50 us is made again, its offset
 * being uncertain by that much. */
static inline int64_t wall_offset_us(void) {
  int64_t m0, w, m1;
  int tries = 0;
  do {
    m0 = mono_us(), w = wall_us(), m1 = mono_us();
  } while (m1 - m0 > 50 && ++tries < 20);
  return w - m0 - (m1 - m0) / 2;
}

/* A step of `want_ms` measured as `got_ms`, within the tolerance of the
 * clock-step rows (2 %, and 0.1 ms for the readings). */
static inline bool step_measured(double got_ms, double want_ms) {
  return got_ms >= want_ms * 0.98 - 0.1 && got_ms <= want_ms * 1.02 + 0.1;
}

static inline void print_stats(const char *who, const sfc_generator *g) {
  sfc_stats s;
  sfc_generator_stats(g, &s);
  fprintf(stderr,
          "%s: ids_issued=%" PRIu64 " waits=%" PRIu64 " borrowed_ticks=%" PRIu64
          " rollbacks=%" PRIu64 " rollbacks_waited=%" PRIu64
          " rollbacks_refused=%" PRIu64 " clock_bumps=%" PRIu64
          " rollback=%s\n",
          who, sfc_stats_uint(&s, SFC_STAT_IDS_ISSUED),
          sfc_stats_uint(&s, SFC_STAT_WAITS),
          sfc_stats_uint(&s, SFC_STAT_BORROWED_TICKS),
          sfc_stats_uint(&s, SFC_STAT_ROLLBACKS),
          sfc_stats_uint(&s, SFC_STAT_ROLLBACKS_WAITED),
          sfc_stats_uint(&s, SFC_STAT_ROLLBACKS_REFUSED),
          sfc_stats_uint(&s, SFC_STAT_CLOCK_BUMPS),
          sfc_stats_text(&s, SFC_STAT_ROLLBACK));
}

typedef struct result {
  uint64_t ids, faults, dups, expected, unexpected;
  bool ok;
  char note[512];
} result;

static inline void result_fail(result *r, const char *fmt, ...) {
  va_list ap;
  size_t len = strlen(r->note);
  if (len && len < sizeof r->note - 2) {
    r->note[len++] = ';';
    r->note[len++] = ' ';
    r->note[len] = '\0';
  }
  va_start(ap, fmt);
  vsnprintf(r->note + len, sizeof r->note - len, fmt, ap);
  va_end(ap);
  r->ok = false;
  fprintf(stderr, "FAIL: %s\n", r->note + len);
}

static inline void result_print(const result *r) {
  printf("RESULT ids=%" PRIu64 " faults=%" PRIu64 " dups=%" PRIu64
         " expected=%" PRIu64 " unexpected=%" PRIu64 " ok=%d note=%s\n",
         r->ids, r->faults, r->dups, r->expected, r->unexpected, r->ok ? 1 : 0,
         r->note[0] ? r->note : "-");
  fflush(stdout);
}

static inline void must(sfc_status st, const sfc_error *err, const char *what) {
  if (st != SFC_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, sfc_status_name(err->status),
            err->message);
    exit(99);
  }
}

/* The latest tick of the IDs in `path` (one decimal ID per line), or -1; a
 * last line cut short by a kill is left out. */
static inline int64_t last_tick_of(const char *path, const sfc_layout *layout) {
  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    exit(2);
  }
  int64_t last = -1;
  char line[64];
  while (fgets(line, sizeof line, f)) {
    if (!strchr(line, '\n')) break;
    const int64_t tick =
        (int64_t)(strtoull(line, NULL, 10) >> layout->fields[0].shift);
    if (tick > last) last = tick;
  }
  fclose(f);
  return last;
}

/* The row's epoch: RELIABILITY_EPOCH_MS, which tests/reliability/run sets
 * for every row (2024-01-01 without it). The host-wide claim of a node value
 * is keyed on the epoch, so a driver's claims are shared with nothing else
 * on the machine, and the hand-over records it leaves ahead of the clock
 * are read by its own row only. */
static inline int64_t row_epoch_ms(void) {
  const char *e = getenv("RELIABILITY_EPOCH_MS");
  return e && *e ? strtoll(e, NULL, 10) : INT64_C(1704067200000);
}

/* A preset's fields on the row's epoch. */
static inline void row_layout(const char *preset, sfc_layout *out) {
  sfc_layout p;
  sfc_error err;
  char spec[512];
  must(sfc_layout_preset(preset, &p, &err), &err, preset);
  sfc_layout_spec(&p, spec, sizeof spec);
  must(sfc_layout_parse(spec, row_epoch_ms(), out, &err), &err, spec);
}

/* libfaketime's offset file, open for the whole run (faketime_open): one
 * pwrite of a fixed-width text replaces it, with no file created or
 * renamed, so a step happens a few microseconds after the ID before it. */
static inline int faketime_open(const char *file) {
  int fd = open(file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    perror(file);
    exit(2);
  }
  return fd;
}

static inline void faketime_set(int fd, double seconds) {
  char text[32];
  int n = snprintf(text, sizeof text, "%+016.6f\n", seconds);
  if (pwrite(fd, text, (size_t)n, 0) != n) {
    perror("pwrite");
    exit(99);
  }
}

#endif
